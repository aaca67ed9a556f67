import type { JWTPayload, JWTVerifyGetKey, JWTVerifyOptions } from 'jose';
import { ServiceUnavailable, TokenRefused } from './service-errors.js';
import { callService } from './service-http.js';
import { checkTokenTimes } from './token-times.js';

const keySets = new Map<string, Promise<JWTVerifyGetKey>>();

async function remoteKeySet(service: string, jwksUrl: string): Promise<JWTVerifyGetKey> {
  // jose is loaded with the first token a service sends, not at start: importing it costs tens of milliseconds.
  const { createRemoteJWKSet, customFetch } = await import('jose');
  return createRemoteJWKSet(new URL(jwksUrl), {
    [customFetch]: (url: string, options: { headers: Headers }) => callService(service, url, { headers: options.headers }),
  });
}

/**
 * A service's published keys (its JWKS), fetched through callService (so a dead or slow key
 * endpoint is ServiceUnavailable) and cached by jose for 10 minutes; a token naming an unknown
 * `kid` makes it look again, at most every 30 seconds. Keys come only from here: a token's own
 * `jwk` or `jku` header is never used.
 */
export function serviceKeys(service: string, jwksUrl: string): JWTVerifyGetKey {
  return async (header, token) => {
    let keys = keySets.get(jwksUrl);
    if (!keys) {
      keys = remoteKeySet(service, jwksUrl);
      keySets.set(jwksUrl, keys);
    }
    return (await keys)(header, token);
  };
}

/** jose's codes for a token that is malformed, forged, expired, for another issuer or audience, or signed by a key nobody publishes. */
const TOKEN_FAULT = /^ERR_(JWT_|JWS_|JOSE_ALG_NOT_ALLOWED$|JOSE_NOT_SUPPORTED$|JWKS_NO_MATCHING_KEY$|JWKS_MULTIPLE_MATCHING_KEYS$)/;

/**
 * jwtVerify with the service's pinned algorithms, issuer and audience, and its failures sorted:
 * the token's fault is TokenRefused (401), the key endpoint's is ServiceUnavailable (503). jose
 * checks `iat` only against a maximum age, which these services do not fix, so a token issued in
 * the future is refused by checkTokenTimes.
 */
export async function verifyServiceToken(service: string, token: string, keys: JWTVerifyGetKey, options: JWTVerifyOptions): Promise<JWTPayload> {
  const { jwtVerify } = await import('jose');
  let verified: JWTPayload;
  try {
    ({ payload: verified } = await jwtVerify(token, keys, { clockTolerance: 5, requiredClaims: ['sub', 'exp'], ...options }));
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code !== 'string' || !code.startsWith('ERR_')) throw error;
    if (TOKEN_FAULT.test(code)) throw new TokenRefused(code);
    // The key set could not be fetched or read (ERR_JWKS_INVALID, ERR_JWKS_TIMEOUT, ERR_JOSE_GENERIC).
    throw new ServiceUnavailable(`${service} keys could not be used (${code})`);
  }
  checkTokenTimes(service, verified);
  return verified;
}
