import { createSecretKey, randomUUID, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { Config } from '../../config.js';

/** Access tokens are HS256 only: a token with any other algorithm, "none" included, is rejected. */
const ALGORITHM = 'HS256';

const keys = new WeakMap<Config, KeyObject>();

/**
 * JWT_SECRET as a key, made once per configuration. jsonwebtoken also takes the secret as a string,
 * but then first tries it as a PEM public key on every call, which costs more than the check itself.
 */
function signingKey(config: Config): KeyObject {
  let key = keys.get(config);
  if (!key) {
    key = createSecretKey(Buffer.from(config.JWT_SECRET, 'utf8'));
    keys.set(config, key);
  }
  return key;
}

export interface SignedAccessToken {
  token: string;
  tokenId: string;
  expiresIn: number;
  expiresAt: Date;
}

/** Signs { sub, jti, iat, exp } with exp - iat equal to JWT_EXPIRES_IN. */
export function signAccessToken(config: Config, userId: string): SignedAccessToken {
  const tokenId = randomUUID();
  const issuedAt = Math.floor(Date.now() / 1000);
  const expiresIn = config.JWT_EXPIRES_IN;
  const claims = { sub: userId, jti: tokenId, iat: issuedAt, exp: issuedAt + expiresIn };
  const token = jwt.sign(claims, signingKey(config), { algorithm: ALGORITHM });
  return { token, tokenId, expiresIn, expiresAt: new Date((issuedAt + expiresIn) * 1000) };
}

export interface AccessTokenClaims {
  userId: string;
  tokenId: string;
  /** When the token was issued: a recent sign-in is required for security changes. */
  issuedAt: Date;
}

/**
 * The claims of a token this app signed, or undefined when the signature, the algorithm or the
 * claims are wrong or it has expired. Whether it was revoked is for the guard to read.
 */
export function verifyAccessToken(config: Config, token: string): AccessTokenClaims | undefined {
  let claims: string | jwt.JwtPayload;
  try {
    claims = jwt.verify(token, signingKey(config), { algorithms: [ALGORITHM] });
  } catch {
    return undefined;
  }
  // jsonwebtoken checks exp only when a token has one: every claim this app signs must be there.
  if (typeof claims !== 'object' || typeof claims.sub !== 'string' || typeof claims.jti !== 'string') return undefined;
  if (typeof claims.iat !== 'number' || typeof claims.exp !== 'number') return undefined;
  return { userId: claims.sub, tokenId: claims.jti, issuedAt: new Date(claims.iat * 1000) };
}
