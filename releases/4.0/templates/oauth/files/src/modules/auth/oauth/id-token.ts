import type { JWTPayload, JWTVerifyGetKey } from 'jose';
import type { ServerMetadata } from 'openid-client';
import type { OAuthFlow } from './flow-cookie.js';
import type { Claims, OidcProvider } from './oauth-provider.js';
import { ProviderError, providerErrorOf } from './provider-error.js';
import { limitedFetch, PROVIDER_TIMEOUT_SECONDS } from './provider-http.js';

/** Signatures by a key from the provider's JWKS only: never `none`, never a shared secret (HS*). */
const ASYMMETRIC = new Set(['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA']);

/**
 * An id_token's `iat` may be this far ahead of our clock (skew), and `exp - iat` at most a day:
 * no provider issues tokens for longer, and a token valid for years, once leaked, never dies.
 */
const MAX_FUTURE_IAT_SECONDS = 60;
const MAX_LIFETIME_SECONDS = 24 * 60 * 60;

const keySets = new Map<string, JWTVerifyGetKey>();

async function keySet(jwksUri: string): Promise<JWTVerifyGetKey> {
  let keys = keySets.get(jwksUri);
  if (!keys) {
    const { createRemoteJWKSet, customFetch } = await import('jose');
    keys = createRemoteJWKSet(new URL(jwksUri), { timeoutDuration: PROVIDER_TIMEOUT_SECONDS * 1000, [customFetch]: limitedFetch });
    keySets.set(jwksUri, keys);
  }
  return keys;
}

/** The issuers a token may name: the discovered one (its `{tenantid}` filled from the token) and the provider's aliases. */
function expectedIssuers(provider: OidcProvider, discovered: string, payload: JWTPayload): string[] {
  const tenant = typeof payload.tid === 'string' && /^[\w-]+$/.test(payload.tid) ? payload.tid : undefined;
  const issuer = discovered.includes('{tenantid}') ? (tenant ? discovered.replace('{tenantid}', tenant) : undefined) : discovered;
  return issuer ? [issuer, ...(provider.issuerAliases?.(issuer) ?? [])] : [];
}

/**
 * Verifies an id_token for every OpenID Connect provider the same way: the signature with a key of
 * the issuer's JWKS and an algorithm its discovery document offers, then `iss`, `aud` (and `azp`
 * when there are several audiences), `exp`, `iat` (not in the future, at most a day before `exp`)
 * and the flow's nonce.
 */
export async function verifyIdToken(provider: OidcProvider, metadata: ServerMetadata, idToken: string, clientId: string, flow: OAuthFlow): Promise<Claims> {
  const algorithms = (metadata.id_token_signing_alg_values_supported ?? ['RS256']).filter((alg) => ASYMMETRIC.has(alg));
  if (!metadata.jwks_uri || algorithms.length === 0) throw new ProviderError('the discovery document offers no JWKS or no asymmetric id_token algorithm');
  // jose is loaded with the first sign-in through a provider, not at start: importing it costs tens of milliseconds.
  const { jwtVerify } = await import('jose');
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(idToken, await keySet(metadata.jwks_uri), { algorithms, audience: clientId, clockTolerance: 30, requiredClaims: ['iss', 'sub', 'aud', 'exp', 'iat'] }));
  } catch (error) {
    throw providerErrorOf(error, `id_token refused: ${(error as { code?: string }).code ?? (error as Error).name}`);
  }
  const now = Math.floor(Date.now() / 1000);
  if (payload.iat! > now + MAX_FUTURE_IAT_SECONDS) throw new ProviderError('id_token issued in the future');
  if (payload.exp! - payload.iat! > MAX_LIFETIME_SECONDS) throw new ProviderError('id_token lives longer than 24 hours');
  if (!expectedIssuers(provider, metadata.issuer, payload).includes(payload.iss!)) throw new ProviderError(`id_token issuer ${payload.iss} is not ${metadata.issuer}`);
  if (Array.isArray(payload.aud) && payload.aud.length > 1 && payload.azp !== clientId) throw new ProviderError('id_token azp is not this client');
  const checkNonce = provider.nonce === 'required' || payload.nonce !== undefined;
  if (checkNonce && payload.nonce !== flow.nonce) throw new ProviderError('id_token nonce does not match the flow');
  return payload;
}
