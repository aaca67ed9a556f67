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
  expiresIn: number;
}

/** The session an access token belongs to. */
export interface TokenSession {
  id: string;
  userId: string;
  /** The session's sign-in. */
  createdAt: Date;
}

/**
 * Signs { sub, sid, jti, iat, exp, auth_time } with exp - iat equal to JWT_EXPIRES_IN. auth_time
 * (the OpenID Connect claim) is the session's sign-in, which refreshes do not move: the recent
 * sign-in rule reads it without another query.
 */
export function signAccessToken(config: Config, session: TokenSession): SignedAccessToken {
  const issuedAt = Math.floor(Date.now() / 1000);
  const expiresIn = config.JWT_EXPIRES_IN;
  const claims = {
    sub: session.userId,
    sid: session.id,
    jti: randomUUID(),
    iat: issuedAt,
    exp: issuedAt + expiresIn,
    auth_time: Math.floor(session.createdAt.getTime() / 1000),
  };
  return { token: jwt.sign(claims, signingKey(config), { algorithm: ALGORITHM }), expiresIn };
}

export interface AccessTokenClaims {
  userId: string;
  sessionId: string;
  /** When the session signed in: a recent sign-in is required for security changes. */
  signedInAt: Date;
}

/**
 * The claims of a token this app signed, or undefined when the signature, the algorithm or the
 * claims are wrong or it has expired. Whether its session still lives is for the guard to read.
 */
export function verifyAccessToken(config: Config, token: string): AccessTokenClaims | undefined {
  let claims: string | jwt.JwtPayload;
  try {
    claims = jwt.verify(token, signingKey(config), { algorithms: [ALGORITHM] });
  } catch {
    return undefined;
  }
  // jsonwebtoken checks exp only when a token has one: every claim this app signs must be there.
  if (typeof claims !== 'object' || typeof claims.sub !== 'string' || typeof claims.sid !== 'string' || typeof claims.jti !== 'string') return undefined;
  if (typeof claims.iat !== 'number' || typeof claims.exp !== 'number' || typeof claims.auth_time !== 'number') return undefined;
  return { userId: claims.sub, sessionId: claims.sid, signedInAt: new Date(claims.auth_time * 1000) };
}
