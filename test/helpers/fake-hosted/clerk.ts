/**
 * Clerk: the instance's Frontend API (issuer, JWKS) under `/clerk` and its Backend API under
 * `/clerk-api` (`GET /v1/users/{id}`, `GET /v1/jwks`, both with the secret key). Session tokens are
 * v2 RS256 JWTs signed by an RSA-2048 key whose SPKI PEM is CLERK_JWT_KEY.
 */
import { base62, clerkId, hex, nowSeconds } from './ids.js';
import { generateSigningKey, jwks } from './keys.js';
import { bearerToken, json, type HostedRequest, type Reply, type ServiceHandler } from './http.js';
import { mintToken, type AttackerKeys, type TokenOverrides } from './token-forgery.js';
import { newUserId, resolveUser, type HostedUser } from './user.js';

/** The `cat` header Clerk stamps on session tokens (an M2M token carries `cl_B7d4PD333AAA`). */
export const CLERK_SESSION_TOKEN_CATEGORY = 'cl_B7d4PD111AAA';

export type ClerkEmailStatus = 'verified' | 'unverified';

export interface ClerkUserInput extends HostedUser {
  /** The primary address's `verification.status`; default from `emailVerified` (default verified). */
  primaryEmailStatus?: ClerkEmailStatus;
  /** Further, non-primary addresses, listed after the primary one. */
  otherEmails?: { email: string; status: ClerkEmailStatus }[];
}

export type ClerkEnv = {
  /** `sk_test_…`, the Backend API bearer key. */
  CLERK_SECRET_KEY: string;
  /** `pk_test_` + base64 of `<issuer without scheme>$`, so it decodes to the issuer host and path. */
  CLERK_PUBLISHABLE_KEY: string;
  /** SPKI PEM (`BEGIN PUBLIC KEY`) of the RSA-2048, e = 65537 signing key. */
  CLERK_JWT_KEY: string;
  CLERK_AUTHORIZED_PARTIES: string;
  /** `<url>/clerk`, the Frontend API URL and the tokens' `iss`. */
  CLERK_ISSUER: string;
  /** `<url>/clerk-api`. */
  CLERK_API_URL: string;
};

export interface FakeClerk {
  env(): ClerkEnv;
  /** Returns the `user_…` id. */
  addUser(user?: ClerkUserInput): string;
  /**
   * A v2 session token: header `{alg: RS256, kid: ins_…, cat, typ: JWT}`, claims `azp` (the authorized
   * party), `exp` (iat + 60), `fva: [0, -1]`, `iat`, `iss`, `jti`, `nbf` (iat - 10), `sid`, `sub`, `v: 2`.
   * Any user id may be given, also one never added.
   */
  sessionToken(userId: string, overrides?: TokenOverrides): Promise<string>;
}

interface StoredEmail {
  id: string;
  email: string;
  status: ClerkEmailStatus;
}

interface StoredUser {
  id: string;
  name?: string;
  picture?: string;
  emails: StoredEmail[];
  createdAt: number;
}

function clerkError(status: number, code: string, message: string, longMessage = message): Reply {
  return json(status, { errors: [{ message, long_message: longMessage, code }], clerk_trace_id: hex(16) });
}

function emailJson(email: StoredEmail, createdAt: number) {
  return {
    id: email.id,
    object: 'email_address',
    email_address: email.email,
    reserved: false,
    verification: {
      status: email.status,
      strategy: 'email_code',
      attempts: email.status === 'verified' ? 1 : 0,
      expire_at: createdAt + 10 * 60_000,
    },
    linked_to: [],
    matches_sso_connection: false,
    created_at: createdAt,
    updated_at: createdAt,
  };
}

/** The Backend API's User object. */
function userJson(user: StoredUser) {
  const [firstName, ...rest] = user.name?.split(' ') ?? [];
  const imageUrl = user.picture ?? 'https://img.clerk.com/eyJ0eXBlIjoiZGVmYXVsdCJ9';
  const at = user.createdAt;
  return {
    id: user.id,
    object: 'user',
    username: null,
    first_name: firstName ?? null,
    last_name: rest.length ? rest.join(' ') : null,
    image_url: imageUrl,
    has_image: user.picture !== undefined,
    primary_email_address_id: user.emails[0]?.id ?? null,
    primary_phone_number_id: null,
    primary_web3_wallet_id: null,
    password_enabled: true,
    two_factor_enabled: false,
    totp_enabled: false,
    backup_code_enabled: false,
    email_addresses: user.emails.map((email) => emailJson(email, at)),
    phone_numbers: [],
    web3_wallets: [],
    passkeys: [],
    external_accounts: [],
    saml_accounts: [],
    enterprise_accounts: [],
    public_metadata: {},
    private_metadata: {},
    unsafe_metadata: {},
    external_id: null,
    last_sign_in_at: at,
    banned: false,
    locked: false,
    lockout_expires_in_seconds: null,
    verification_attempts_remaining: 100,
    created_at: at,
    updated_at: at,
    delete_self_enabled: true,
    create_organization_enabled: true,
    last_active_at: at,
    mfa_enabled_at: null,
    mfa_disabled_at: null,
    legal_accepted_at: null,
    profile_image_url: imageUrl,
  };
}

export async function createClerk(
  url: string,
  attacker: AttackerKeys,
  authorizedParty: string,
): Promise<{ api: FakeClerk; handler: ServiceHandler }> {
  const key = await generateSigningKey('RS256', clerkId('ins'));
  const issuer = `${url}/clerk`;
  const secretKey = `sk_test_${base62(40)}`;
  const users = new Map<string, StoredUser>();

  /** The Backend API's answer when the bearer key is missing or wrong, else undefined. */
  function refuseWithoutSecret(request: HostedRequest): Reply | undefined {
    const token = bearerToken(request);
    if (!token) {
      return clerkError(
        401,
        'authentication_invalid',
        'Invalid authentication',
        'Unable to authenticate the request, you need to supply an active API key',
      );
    }
    if (token !== secretKey) {
      return clerkError(
        401,
        'clerk_key_invalid',
        'The provided Clerk Secret Key is invalid. Make sure that your Clerk Secret Key is correct.',
      );
    }
    return undefined;
  }

  const api: FakeClerk = {
    env: () => ({
      CLERK_SECRET_KEY: secretKey,
      CLERK_PUBLISHABLE_KEY: `pk_test_${Buffer.from(`${issuer.replace(/^https?:\/\//, '')}$`).toString('base64')}`,
      CLERK_JWT_KEY: key.spkiPem,
      CLERK_AUTHORIZED_PARTIES: authorizedParty,
      CLERK_ISSUER: issuer,
      CLERK_API_URL: `${url}/clerk-api`,
    }),
    addUser(input = {}) {
      const user = resolveUser(input);
      const id = newUserId(users, input.id, () => clerkId('user'));
      const primary: StoredEmail[] = user.email
        ? [{ id: clerkId('idn'), email: user.email, status: input.primaryEmailStatus ?? (user.emailVerified ? 'verified' : 'unverified') }]
        : [];
      const others = (input.otherEmails ?? []).map((other) => ({ id: clerkId('idn'), ...other }));
      users.set(id, { id, name: user.name, picture: user.picture, emails: [...primary, ...others], createdAt: user.createdAt.getTime() });
      return id;
    },
    async sessionToken(userId, overrides) {
      const iat = nowSeconds();
      return mintToken({
        key,
        attacker,
        header: { cat: CLERK_SESSION_TOKEN_CATEGORY },
        claims: {
          azp: authorizedParty,
          exp: iat + 60,
          fva: [0, -1],
          iat,
          iss: issuer,
          jti: hex(10),
          nbf: iat - 10,
          sid: clerkId('sess'),
          sub: userId,
          v: 2,
        },
        overrides,
      });
    },
  };

  const handler: ServiceHandler = {
    name: 'clerk',
    routes: [
      { method: 'GET', pattern: '/clerk/.well-known/jwks.json', kind: 'keys', handle: () => json(200, jwks([key])) },
      {
        method: 'GET',
        pattern: '/clerk-api/v1/jwks',
        kind: 'keys',
        handle: (request) => refuseWithoutSecret(request) ?? json(200, jwks([key])),
      },
      {
        method: 'GET',
        pattern: '/clerk-api/v1/users/:id',
        kind: 'user',
        handle(request) {
          const refused = refuseWithoutSecret(request);
          if (refused) return refused;
          const user = users.get(request.params.id!);
          return user ? json(200, userJson(user)) : clerkError(404, 'resource_not_found', 'not found', 'Resource not found');
        },
      },
    ],
    serverError: () =>
      clerkError(500, 'internal_clerk_error', 'Oops, an unexpected error occurred', 'There was an internal error on our servers. We\'ve been notified and are working on fixing it.'),
  };
  return { api, handler };
}
