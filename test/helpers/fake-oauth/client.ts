/**
 * A minimal OAuth client that drives the fake the way an app would (plain fetch): find the
 * endpoints, authorize, redeem the code, sign Apple's client secret. For the fake's own tests and
 * for probing the fake by hand; the generated app has its own client.
 */
import { createHash, randomBytes } from 'node:crypto';
import { importPKCS8, SignJWT } from 'jose';
import { parseFormPost } from './form-post.js';
import type { FakeProviders } from './index.js';
import type { ProviderId } from './types.js';

export const REDIRECT_URI = 'http://localhost:3000/api/auth/callback';

export type ClientAuth = 'basic' | 'post' | 'none';

/** How an app would talk to each provider: its scopes, client authentication and PKCE. */
export const FLOW_DEFAULTS: Record<ProviderId, { scope: string; auth: ClientAuth; pkce: boolean; extra?: Record<string, string> }> = {
  google: { scope: 'openid email profile', auth: 'basic', pkce: true },
  github: { scope: 'read:user user:email', auth: 'post', pkce: true },
  facebook: { scope: 'email public_profile', auth: 'post', pkce: false },
  twitter: { scope: 'tweet.read users.read users.email offline.access', auth: 'basic', pkce: true },
  discord: { scope: 'identify email', auth: 'basic', pkce: true },
  microsoft: { scope: 'openid profile email', auth: 'post', pkce: true },
  apple: { scope: 'name email', auth: 'post', pkce: false, extra: { response_mode: 'form_post' } },
  linkedin: { scope: 'openid profile email', auth: 'post', pkce: false },
  gitlab: { scope: 'openid profile email', auth: 'basic', pkce: true },
  slack: { scope: 'openid profile email', auth: 'post', pkce: false },
  twitch: {
    scope: 'openid user:read:email',
    auth: 'post',
    pkce: false,
    extra: { claims: JSON.stringify({ id_token: { email: null, email_verified: null, picture: null, preferred_username: null } }) },
  },
  oidc: { scope: 'openid email profile', auth: 'basic', pkce: true },
};

export interface Endpoints {
  authorize: string;
  token: string;
  userinfo?: string;
  emails?: string;
  jwks?: string;
  issuer?: string;
}

export interface AuthorizeOptions {
  scope?: string;
  /** null: send no state. */
  state?: string | null;
  /** null: send no nonce (sent only to OIDC providers by default). */
  nonce?: string | null;
  /** Overrides the provider default: a method, or null for no PKCE. */
  pkce?: 'S256' | 'plain' | null;
  /** Extra or replacing authorize parameters. */
  params?: Record<string, string>;
  /** Authorize parameters to leave out. */
  omit?: string[];
}

export interface AuthorizeResult {
  status: number;
  /** code/state or error/error_description/state, from the redirect or the form post. */
  fields: Record<string, string>;
  /** Where the answer sends the browser (the redirect's location or the form's action). */
  target?: string;
  body: string;
  verifier?: string;
  nonce?: string;
  state?: string;
}

export interface TokenOptions {
  auth?: ClientAuth;
  /** The client secret to present (default: the real one; apple: a fresh client-secret JWT). */
  secret?: string;
  headers?: Record<string, string>;
  /** Send the fields as JSON instead of a form. */
  json?: boolean;
}

function random(): string {
  return randomBytes(32).toString('base64url');
}

/** Apple's client secret JWT as the app signs it; `overrides` break one part of it. */
export async function appleClientSecret(
  env: Record<string, string>,
  overrides: { kid?: string; aud?: string; iss?: string; sub?: string; iat?: number; exp?: number; pem?: string } = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const key = await importPKCS8(overrides.pem ?? env.APPLE_PRIVATE_KEY!, 'ES256');
  return new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: overrides.kid ?? env.APPLE_KEY_ID! })
    .setIssuer(overrides.iss ?? env.APPLE_TEAM_ID!)
    .setSubject(overrides.sub ?? env.APPLE_CLIENT_ID!)
    .setAudience(overrides.aud ?? env.APPLE_ISSUER!)
    .setIssuedAt(overrides.iat ?? now)
    .setExpirationTime(overrides.exp ?? now + 3600)
    .sign(key);
}

export class FakeClient {
  readonly env: Record<string, string>;
  readonly clientId: string;
  private readonly prefix: string;

  constructor(
    readonly fake: FakeProviders,
    readonly provider: ProviderId,
    readonly tenant = 'common',
  ) {
    this.env = fake.env(provider);
    this.prefix = provider.toUpperCase();
    this.clientId = this.env[`${this.prefix}_CLIENT_ID`]!;
  }

  get defaults() {
    return FLOW_DEFAULTS[this.provider];
  }

  get issuer(): string | undefined {
    const issuer = this.env[`${this.prefix}_ISSUER`];
    return issuer?.replace('{tenant}', this.tenant);
  }

  async discovery(): Promise<Record<string, unknown>> {
    const response = await fetch(`${this.issuer}/.well-known/openid-configuration`);
    return (await response.json()) as Record<string, unknown>;
  }

  async endpoints(): Promise<Endpoints> {
    const env = this.env;
    const p = this.prefix;
    if (!this.issuer) {
      return {
        authorize: env[`${p}_AUTHORIZATION_URL`]!,
        token: env[`${p}_TOKEN_URL`]!,
        userinfo: env[`${p}_USERINFO_URL`],
        emails: env[`${p}_EMAILS_URL`],
      };
    }
    const doc = (await this.discovery()) as Record<string, string>;
    return {
      authorize: doc.authorization_endpoint!,
      token: doc.token_endpoint!,
      userinfo: doc.userinfo_endpoint,
      jwks: doc.jwks_uri,
      issuer: doc.issuer,
    };
  }

  async authorize(options: AuthorizeOptions = {}): Promise<AuthorizeResult> {
    const { authorize } = await this.endpoints();
    const method = options.pkce === undefined ? (this.defaults.pkce ? 'S256' : null) : options.pkce;
    const verifier = method ? random() : undefined;
    const challenge = verifier && (method === 'S256' ? createHash('sha256').update(verifier).digest('base64url') : verifier);
    const state = options.state === undefined ? random() : (options.state ?? undefined);
    const nonce = options.nonce === undefined ? (this.issuer ? random() : undefined) : (options.nonce ?? undefined);
    const params: Record<string, string | undefined> = {
      response_type: 'code',
      client_id: this.clientId,
      redirect_uri: REDIRECT_URI,
      scope: options.scope ?? this.defaults.scope,
      state,
      nonce,
      code_challenge: challenge,
      code_challenge_method: method ?? undefined,
      ...this.defaults.extra,
      ...options.params,
    };
    const url = new URL(authorize);
    for (const [name, value] of Object.entries(params)) {
      if (value !== undefined && !options.omit?.includes(name)) url.searchParams.set(name, value);
    }
    const response = await fetch(url, { redirect: 'manual' });
    const body = await response.text();
    const location = response.headers.get('location') ?? undefined;
    const result = { status: response.status, body, verifier, nonce, state };
    if (location) return { ...result, target: location, fields: Object.fromEntries(new URL(location).searchParams) };
    if (response.status === 200 && body.includes('<form')) {
      const form = parseFormPost(body);
      return { ...result, target: form.action, fields: form.fields };
    }
    return { ...result, fields: {} };
  }

  /** The default secret: the real one, or for apple a fresh client-secret JWT. */
  async secret(): Promise<string> {
    return this.provider === 'apple' ? appleClientSecret(this.env) : this.env[`${this.prefix}_CLIENT_SECRET`]!;
  }

  async token(fields: Record<string, string | undefined>, options: TokenOptions = {}): Promise<Response> {
    const { token } = await this.endpoints();
    const auth = options.auth ?? this.defaults.auth;
    const secret = options.secret ?? (await this.secret());
    const body: Record<string, string> = {};
    for (const [name, value] of Object.entries({ grant_type: 'authorization_code', client_id: this.clientId, ...fields })) {
      if (value !== undefined) body[name] = value;
    }
    const headers: Record<string, string> = { ...options.headers };
    if (auth === 'post') body.client_secret = secret;
    if (auth === 'basic') {
      delete body.client_id;
      const credentials = `${encodeURIComponent(this.clientId)}:${encodeURIComponent(secret)}`;
      headers.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
    }
    if (options.json) headers['content-type'] = 'application/json';
    return fetch(token, { method: 'POST', headers, body: options.json ? JSON.stringify(body) : new URLSearchParams(body) });
  }

  /** Redeems an authorize result's code with its verifier and the registered redirect_uri. */
  redeem(result: AuthorizeResult, options: TokenOptions & { fields?: Record<string, string | undefined> } = {}): Promise<Response> {
    return this.token({ code: result.fields.code, redirect_uri: REDIRECT_URI, code_verifier: result.verifier, ...options.fields }, options);
  }

  /** authorize + redeem; fails the test when either step does not succeed. */
  async login(options: AuthorizeOptions = {}): Promise<{ authorized: AuthorizeResult; response: Response; text: string }> {
    const authorized = await this.authorize(options);
    if (!authorized.fields.code) {
      throw new Error(`authorize gave no code: ${authorized.status} ${JSON.stringify(authorized.fields)} ${authorized.body}`);
    }
    const response = await this.redeem(authorized);
    return { authorized, response, text: await response.text() };
  }
}
