import { randomUUID } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import type { Config } from '../../config.js';

/** Access tokens are HS256 only; any other algorithm (including "none") is rejected on verify. */
const ALGORITHM = 'HS256';

function signingKey(config: Config): Uint8Array {
  return new TextEncoder().encode(config.JWT_SECRET);
}

export interface SignedAccessToken {
  token: string;
  tokenId: string;
  expiresIn: number;
  expiresAt: Date;
}

/** Signs { sub, jti, iat, exp } with exp - iat equal to JWT_EXPIRES_IN. */
export async function signAccessToken(config: Config, userId: string): Promise<SignedAccessToken> {
  const tokenId = randomUUID();
  const issuedAt = Math.floor(Date.now() / 1000);
  const expiresIn = config.JWT_EXPIRES_IN;
  const token = await new SignJWT({})
    .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
    .setSubject(userId)
    .setJti(tokenId)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + expiresIn)
    .sign(signingKey(config));
  return { token, tokenId, expiresIn, expiresAt: new Date((issuedAt + expiresIn) * 1000) };
}

export interface AccessTokenClaims {
  userId: string;
  tokenId: string;
  /** When the token was issued: a recent sign-in is required for security changes. */
  issuedAt: Date;
}

/** Checks signature, algorithm and expiry; returns the subject, token id and issue time, or undefined. */
export async function verifyAccessToken(config: Config, token: string): Promise<AccessTokenClaims | undefined> {
  try {
    const { payload } = await jwtVerify(token, signingKey(config), { algorithms: [ALGORITHM], typ: 'JWT' });
    if (typeof payload.sub !== 'string' || typeof payload.jti !== 'string' || typeof payload.iat !== 'number') return undefined;
    return { userId: payload.sub, tokenId: payload.jti, issuedAt: new Date(payload.iat * 1000) };
  } catch {
    return undefined;
  }
}
