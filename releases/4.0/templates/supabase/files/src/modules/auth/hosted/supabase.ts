import type { JWTVerifyGetKey } from 'jose';
import type { Config } from '../../../config.js';
import type { AppContext } from '../../../context.js';
import { displayNameOf, imageOf, plainEmail } from '../identities/profile-fields.js';
import type { HostedProfile } from './hosted-sign-in.js';
import { ServiceUnavailable, TokenRefused } from './service-errors.js';
import { getServiceJson } from './service-http.js';
import { serviceKeys, verifyServiceToken } from './service-keys.js';
import { createTokenExchangeRoutes, type TokenService } from './token-exchange.js';

interface SupabaseSettings {
  /** `<SUPABASE_URL>/auth/v1`: Supabase Auth's base URL and its tokens' `iss`. */
  authUrl: string;
  anonKey: string;
  /** The legacy HS256 JWT secret; only projects that still sign with it set it. */
  legacySecret?: Uint8Array;
}

function settingsOf(config: Config): SupabaseSettings | undefined {
  if (!config.SUPABASE_URL || !config.SUPABASE_ANON_KEY) return undefined;
  return {
    authUrl: `${config.SUPABASE_URL.replace(/\/+$/, '')}/auth/v1`,
    anonKey: config.SUPABASE_ANON_KEY,
    ...(config.SUPABASE_JWT_SECRET ? { legacySecret: new TextEncoder().encode(config.SUPABASE_JWT_SECRET) } : {}),
  };
}

/**
 * A Supabase access token: ES256 or RS256 by a key of the project's JWKS, or HS256 with the legacy
 * secret only when SUPABASE_JWT_SECRET is set; `iss` exactly `<SUPABASE_URL>/auth/v1`, `aud`
 * `authenticated`.
 */
async function verifyAccessToken(token: string, settings: SupabaseSettings): Promise<string> {
  const jwks = serviceKeys('supabase', `${settings.authUrl}/.well-known/jwks.json`);
  const { legacySecret } = settings;
  const keys: JWTVerifyGetKey = (header, jws) => (header.alg === 'HS256' && legacySecret ? legacySecret : jwks(header, jws));
  const claims = await verifyServiceToken('supabase', token, keys, {
    algorithms: legacySecret ? ['ES256', 'RS256', 'HS256'] : ['ES256', 'RS256'],
    issuer: settings.authUrl,
    audience: 'authenticated',
  });
  return claims.sub!;
}

/**
 * The user from `GET /auth/v1/user`. The address counts as verified only when `email_confirmed_at`
 * is set: `user_metadata.email_verified`, in the token and here, is written by the user
 * themselves (PUT /auth/v1/user), so it is never read.
 */
async function fetchProfile(subject: string, token: string, settings: SupabaseSettings): Promise<HostedProfile> {
  const { status, body } = await getServiceJson('supabase', `${settings.authUrl}/user`, { authorization: `Bearer ${token}`, apikey: settings.anonKey });
  const answer = (body ?? {}) as Record<string, unknown>;
  if (status === 400 || status === 401 || status === 403) {
    // Supabase Auth's own refusals carry an error_code; the API gateway's (a wrong anon key) do not.
    if (typeof answer.error_code === 'string') throw new TokenRefused(`supabase /auth/v1/user refused the token (${answer.error_code})`);
    throw new ServiceUnavailable(`supabase API gateway answered HTTP ${status} (check SUPABASE_ANON_KEY)`);
  }
  if (status !== 200) throw new ServiceUnavailable(`supabase /auth/v1/user answered HTTP ${status}`);
  if (answer.id !== subject) throw new TokenRefused('supabase /auth/v1/user answered for another user');
  const metadata = (answer.user_metadata ?? {}) as Record<string, unknown>;
  return {
    providerAccountId: subject,
    email: plainEmail(answer.email),
    emailVerified: typeof answer.email_confirmed_at === 'string' && answer.email_confirmed_at !== '',
    name: displayNameOf(metadata.full_name, metadata.name),
    image: imageOf(metadata.avatar_url),
  };
}

/** Supabase Auth: access tokens from supabase-js, exchanged for the app's own. */
export const supabase: TokenService<SupabaseSettings> = {
  id: 'supabase',
  name: 'Supabase',
  requiredEnv: ['SUPABASE_URL', 'SUPABASE_ANON_KEY'],
  settings: settingsOf,
  verify: verifyAccessToken,
  profile: fetchProfile,
};

export const createSupabaseRoutes = (ctx: AppContext) => createTokenExchangeRoutes(ctx, supabase);
