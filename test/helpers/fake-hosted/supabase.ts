/**
 * Supabase: a project under `/supabase` with GoTrue at `/auth/v1` (JWKS and `GET /user`) behind the
 * API gateway's `apikey` check. Access tokens are ES256 by default (RS256 on request), or HS256 with
 * the legacy JWT secret, which also signs the anon key.
 */
import { randomUUID } from 'node:crypto';
import { errors } from 'jose';
import { nowSeconds } from './ids.js';
import { generateSecretKey, generateSigningKey, jwks, type SigningKey } from './keys.js';
import { bearerToken, json, type HostedRequest, type Reply, type ServiceHandler } from './http.js';
import { mintToken, type AttackerKeys, type TokenOverrides } from './token-forgery.js';
import { newUserId, resolveUser, type HostedUser } from './user.js';
import { verifyIssued } from './verify.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const APP_METADATA = { provider: 'email', providers: ['email'] };

export type SupabaseEnv = {
  /** `<url>/supabase`; GoTrue is at `<SUPABASE_URL>/auth/v1`. */
  SUPABASE_URL: string;
  /** A legacy anon key: an HS256 JWT `{iss: 'supabase', ref, role: 'anon'}` signed with the JWT secret. */
  SUPABASE_ANON_KEY: string;
  /** Only with `legacySecret: true`. */
  SUPABASE_JWT_SECRET?: string;
};

export interface SupabaseUserInput extends HostedUser {
  /**
   * Merged over the default `user_metadata` (`{email, email_verified, phone_verified: false, sub}`).
   * Users can write this themselves, so `{ email_verified: true }` with `emailVerified: false` is the
   * forged-metadata case: `email_confirmed_at` stays absent.
   */
  userMetadata?: Record<string, unknown>;
  /** Default ''. */
  phone?: string;
}

export interface SupabaseTokenOverrides extends TokenOverrides {
  /** Default ES256 (JWKS, kid); RS256 (JWKS, kid); HS256 (legacy JWT secret, no kid). */
  alg?: 'ES256' | 'RS256' | 'HS256';
}

export interface FakeSupabase {
  env(options?: { legacySecret?: boolean }): SupabaseEnv;
  /** Returns the user's UUID. */
  addUser(user?: SupabaseUserInput): string;
  /**
   * An access token like GoTrue's: header `{alg, kid, typ: JWT}`, claims `iss` (`<SUPABASE_URL>/auth/v1`),
   * `sub`, `aud: 'authenticated'` (a string), `exp` (iat + 3600), `iat`, `email`, `phone`,
   * `app_metadata`, `user_metadata`, `role: 'authenticated'`, `aal: 'aal1'`, `amr`, `session_id`,
   * `is_anonymous: false`. Email and metadata come from the user (blank for an id never added).
   * `hs256-with-public-key` uses the RS256 key's PEM when `alg` is RS256, else the ES256 key's.
   */
  accessToken(id: string, overrides?: SupabaseTokenOverrides): Promise<string>;
}

interface StoredUser {
  id: string;
  email: string;
  emailConfirmedAt: Date | null;
  phone: string;
  userMetadata: Record<string, unknown>;
  createdAt: Date;
}

/** GoTrue's error body (`{code, error_code, msg}`) with its `x-sb-error-code` header. */
function goTrueError(status: number, errorCode: string, msg: string): Reply {
  return json(status, { code: status, error_code: errorCode, msg }, { 'x-sb-error-code': errorCode });
}

/** GET /auth/v1/user's body. `email_confirmed_at` and `confirmed_at` are left out while unconfirmed, as GoTrue does. */
function userJson(user: StoredUser) {
  const confirmed = user.emailConfirmedAt?.toISOString();
  const at = user.createdAt.toISOString();
  const identity = {
    identity_id: randomUUID(),
    id: user.id,
    user_id: user.id,
    identity_data: { email: user.email, email_verified: confirmed !== undefined, phone_verified: false, sub: user.id },
    provider: 'email',
    last_sign_in_at: at,
    created_at: at,
    updated_at: at,
    email: user.email,
  };
  return {
    id: user.id,
    aud: 'authenticated',
    role: 'authenticated',
    email: user.email,
    ...(confirmed ? { email_confirmed_at: confirmed } : {}),
    phone: user.phone,
    ...(confirmed ? { confirmed_at: confirmed } : { confirmation_sent_at: at }),
    last_sign_in_at: at,
    app_metadata: APP_METADATA,
    user_metadata: user.userMetadata,
    identities: user.email ? [identity] : [],
    created_at: at,
    updated_at: at,
    is_anonymous: false,
  };
}

/** GoTrue's reason text for a token jose refused. */
function jwtProblem(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'token has invalid claims: token is expired';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'token signature is invalid';
  return (error as Error).message;
}

export async function createSupabase(url: string, attacker: AttackerKeys): Promise<{ api: FakeSupabase; handler: ServiceHandler }> {
  const extra = { key_ops: ['verify'], ext: true };
  const [es256, rs256] = await Promise.all([
    generateSigningKey('ES256', randomUUID(), extra),
    generateSigningKey('RS256', randomUUID(), extra),
  ]);
  const legacy = generateSecretKey(48);
  const supabaseUrl = `${url}/supabase`;
  const users = new Map<string, StoredUser>();
  const iat = nowSeconds();
  const anonKey = mintToken({
    key: legacy,
    publicKey: es256,
    attacker,
    claims: { iss: 'supabase', ref: 'fakehostedprojectref', role: 'anon', iat, exp: iat + 10 * 365 * 86_400 },
  });

  function findKey(header: { kid?: string; alg?: string }): SigningKey | undefined {
    if (header.kid !== undefined) return [es256, rs256].find((key) => key.kid === header.kid);
    return header.alg === 'HS256' ? legacy : undefined;
  }

  /** The API gateway's check (before GoTrue): an `apikey` header or query parameter with a project key. */
  function refuseWithoutApiKey(request: HostedRequest): Reply | undefined {
    const apiKey = request.headers.apikey ?? request.url.searchParams.get('apikey');
    if (!apiKey) return json(401, { message: 'No API key found in request', hint: 'No `apikey` request header or url param was found.' });
    if (apiKey !== anonKey) return json(401, { message: 'Invalid API key', hint: 'Double check your Supabase `anon` or `service_role` API key.' });
    return undefined;
  }

  async function handleUser(request: HostedRequest): Promise<Reply> {
    const refused = refuseWithoutApiKey(request);
    if (refused) return refused;
    const token = bearerToken(request);
    if (!token) return goTrueError(401, 'no_authorization', 'This endpoint requires a Bearer token');
    let sub: string | undefined;
    try {
      sub = (await verifyIssued(token, findKey)).sub;
    } catch (error) {
      return goTrueError(403, 'bad_jwt', `invalid JWT: unable to parse or verify signature, ${jwtProblem(error)}`);
    }
    if (!sub) return goTrueError(403, 'bad_jwt', 'invalid claim: missing sub claim');
    if (!UUID.test(sub)) return goTrueError(400, 'bad_jwt', 'invalid claim: sub claim must be a UUID');
    const user = users.get(sub);
    return user ? json(200, userJson(user)) : goTrueError(403, 'user_not_found', 'User from sub claim in JWT does not exist');
  }

  const api: FakeSupabase = {
    env: (options = {}) => ({
      SUPABASE_URL: supabaseUrl,
      SUPABASE_ANON_KEY: anonKey,
      ...(options.legacySecret ? { SUPABASE_JWT_SECRET: legacy.secret.toString() } : {}),
    }),
    addUser(input = {}) {
      const user = resolveUser(input);
      const id = newUserId(users, input.id, randomUUID);
      const email = user.email?.toLowerCase() ?? '';
      const metadata = email ? { email, email_verified: user.emailVerified, phone_verified: false } : {};
      users.set(id, {
        id,
        email,
        emailConfirmedAt: email && user.emailVerified ? new Date(user.createdAt.getTime() + 30_000) : null,
        phone: input.phone ?? '',
        userMetadata: { ...metadata, sub: id, ...input.userMetadata },
        createdAt: user.createdAt,
      });
      return id;
    },
    async accessToken(id, overrides = {}) {
      const { alg = 'ES256', ...rest } = overrides;
      const user = users.get(id);
      const now = nowSeconds();
      return mintToken({
        key: alg === 'HS256' ? legacy : alg === 'RS256' ? rs256 : es256,
        publicKey: alg === 'RS256' ? rs256 : es256,
        attacker,
        claims: {
          iss: `${supabaseUrl}/auth/v1`,
          sub: id,
          aud: 'authenticated',
          exp: now + 3600,
          iat: now,
          email: user?.email ?? '',
          phone: user?.phone ?? '',
          app_metadata: APP_METADATA,
          user_metadata: user?.userMetadata ?? {},
          role: 'authenticated',
          aal: 'aal1',
          amr: [{ method: 'password', timestamp: now }],
          session_id: randomUUID(),
          is_anonymous: false,
        },
        overrides: rest,
      });
    },
  };

  const handler: ServiceHandler = {
    name: 'supabase',
    routes: [
      { method: 'GET', pattern: '/supabase/auth/v1/.well-known/jwks.json', kind: 'keys', handle: () => json(200, jwks([es256, rs256])) },
      { method: 'GET', pattern: '/supabase/auth/v1/user', kind: 'user', handle: handleUser },
    ],
    serverError: () => goTrueError(500, 'unexpected_failure', 'Unexpected failure, please check server logs for more information'),
  };
  return { api, handler };
}
