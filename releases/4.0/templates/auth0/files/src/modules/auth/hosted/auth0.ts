import type { JWTVerifyGetKey } from 'jose';
import type { Config } from '../../../config.js';
import type { AppContext } from '../../../context.js';
import { displayNameOf, imageOf, plainEmail } from '../identities/profile-fields.js';
import type { HostedProfile } from './hosted-sign-in.js';
import { ServiceUnavailable, TokenRefused } from './service-errors.js';
import { getServiceJson } from './service-http.js';
import { serviceKeys, verifyServiceToken } from './service-keys.js';
import { createTokenExchangeRoutes, type TokenService } from './token-exchange.js';

interface Auth0Settings {
  /** The tenant's base URL with exactly one trailing slash: Auth0's `iss`. */
  issuer: string;
  audience: string;
}

function settingsOf(config: Config): Auth0Settings | undefined {
  if (!config.AUTH0_ISSUER_BASE_URL || !config.AUTH0_AUDIENCE) return undefined;
  return { issuer: `${config.AUTH0_ISSUER_BASE_URL.replace(/\/+$/, '')}/`, audience: config.AUTH0_AUDIENCE };
}

const DISCOVERY_CACHE_MS = 60 * 60 * 1000;
const discovered = new Map<string, { keys: JWTVerifyGetKey; expiresAt: number }>();

/** The tenant's keys, from the jwks_uri of its discovery document, which must name exactly this issuer (cached for an hour). */
async function tenantKeys(issuer: string): Promise<JWTVerifyGetKey> {
  const cached = discovered.get(issuer);
  if (cached && cached.expiresAt > Date.now()) return cached.keys;
  const { status, body } = await getServiceJson('auth0', `${issuer}.well-known/openid-configuration`, {});
  const document = (body ?? {}) as { issuer?: unknown; jwks_uri?: unknown };
  if (status !== 200 || typeof document.jwks_uri !== 'string') throw new ServiceUnavailable(`auth0 discovery answered HTTP ${status} without a jwks_uri`);
  if (document.issuer !== issuer) throw new ServiceUnavailable('auth0 discovery names another issuer than AUTH0_ISSUER_BASE_URL');
  const keys = serviceKeys('auth0', document.jwks_uri);
  discovered.set(issuer, { keys, expiresAt: Date.now() + DISCOVERY_CACHE_MS });
  return keys;
}

/**
 * An Auth0 access token for this API: RS256 by a key of the tenant's JWKS, `iss` exactly the
 * tenant URL with its trailing slash, `aud` including AUTH0_AUDIENCE. The keys are looked up only
 * for a token that passed the algorithm check.
 */
async function verifyAccessToken(token: string, settings: Auth0Settings): Promise<string> {
  const keys: JWTVerifyGetKey = async (header, jws) => (await tenantKeys(settings.issuer))(header, jws);
  const claims = await verifyServiceToken('auth0', token, keys, { algorithms: ['RS256'], issuer: settings.issuer, audience: settings.audience });
  return claims.sub!;
}

/**
 * Access tokens carry no email: `/userinfo` has it, answered for the token's own subject. It needs
 * the token to include the `<tenant>/userinfo` audience, which Auth0 adds when the front end asks
 * for the `openid` scope.
 */
async function fetchProfile(subject: string, token: string, settings: Auth0Settings): Promise<HostedProfile> {
  const { status, body } = await getServiceJson('auth0', `${settings.issuer}userinfo`, { authorization: `Bearer ${token}` });
  if (status === 401 || status === 403) throw new TokenRefused('auth0 /userinfo refused the token (was it issued with the openid scope?)');
  if (status !== 200 || typeof body !== 'object' || body === null) throw new ServiceUnavailable(`auth0 /userinfo answered HTTP ${status}`);
  const userinfo = body as Record<string, unknown>;
  if (userinfo.sub !== subject) throw new TokenRefused('auth0 /userinfo answered for another subject');
  return {
    providerAccountId: subject,
    email: plainEmail(userinfo.email),
    emailVerified: userinfo.email_verified === true,
    name: displayNameOf(userinfo.name, userinfo.nickname),
    image: imageOf(userinfo.picture),
  };
}

/** Auth0: access tokens for your Auth0 API, exchanged for the app's own. */
export const auth0: TokenService<Auth0Settings> = {
  id: 'auth0',
  name: 'Auth0',
  requiredEnv: ['AUTH0_ISSUER_BASE_URL', 'AUTH0_AUDIENCE'],
  settings: settingsOf,
  verify: verifyAccessToken,
  profile: fetchProfile,
};

export const createAuth0Routes = (ctx: AppContext) => createTokenExchangeRoutes(ctx, auth0);
