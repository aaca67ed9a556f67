import { createSecretKey, randomUUID, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { Config } from '../../config.js';
import { signWithKeyPair, verifyWithKeyPair } from './signing-keys/key-pair-tokens.js';
import type { KeyContext } from './signing-keys/signing-key-store.js';

const keys = new WeakMap<Config, KeyObject>();

/**
 * JWT_SECRET as a key, made once per configuration. jsonwebtoken also takes the secret as a string,
 * but then first tries it as a PEM public key on every call, which costs more than the check itself.
 */
function secretKey(config: Config): KeyObject {
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

/** The token of an impersonation session: who acts for the user, and when the session ends. */
export interface Impersonating {
  /** The admin, as the `act` claim (RFC 8693, "actor") names them. */
  actorId: string;
  /** The session's end: it is never refreshed, so its one token lives until then. */
  until: Date;
}

/**
 * Signs { sub, sid, jti, iat, exp, auth_time } with exp - iat equal to JWT_EXPIRES_IN. auth_time
 * (the OpenID Connect claim) is the session's sign-in, which refreshes do not move: the recent
 * sign-in rule reads it without another query. An impersonation's token also names the admin in
 * `act`, and lives as long as its session, which has no refresh token.
 *
 * JWT_ALGORITHM=HS256 (the default) signs with JWT_SECRET. EdDSA and ES256 sign with the app's
 * current key pair (signing-keys/), as RFC 9068 access tokens other services verify with the
 * public keys at /.well-known/jwks.json: `kid` and `typ: at+jwt` in the header, and `iss`
 * (API_URL) and `aud` (JWT_AUDIENCE) among the claims.
 */
export async function signAccessToken(ctx: KeyContext, session: TokenSession, impersonating?: Impersonating): Promise<SignedAccessToken> {
  const { config } = ctx;
  const issuedAt = Math.floor(Date.now() / 1000);
  const expiresIn = impersonating ? Math.max(1, Math.floor(impersonating.until.getTime() / 1000) - issuedAt) : config.JWT_EXPIRES_IN;
  const claims = {
    sub: session.userId,
    sid: session.id,
    jti: randomUUID(),
    iat: issuedAt,
    exp: issuedAt + expiresIn,
    auth_time: Math.floor(session.createdAt.getTime() / 1000),
    ...(impersonating ? { act: { sub: impersonating.actorId } } : {}),
  };
  if (config.JWT_ALGORITHM === 'HS256') return { token: jwt.sign(claims, secretKey(config), { algorithm: 'HS256' }), expiresIn };
  const token = await signWithKeyPair(ctx, { iss: config.API_URL, aud: config.JWT_AUDIENCE, ...claims });
  return { token, expiresIn };
}

export interface AccessTokenClaims {
  userId: string;
  sessionId: string;
  /** When the session signed in: a recent sign-in is required for security changes. */
  signedInAt: Date;
  /** The admin acting for the user, in an impersonation session's token. */
  actorId?: string;
}

/** An HS256 token's claims; any other algorithm, "none" included, is refused. */
function verifyWithSecret(config: Config, token: string): jwt.JwtPayload | undefined {
  try {
    const claims = jwt.verify(token, secretKey(config), { algorithms: ['HS256'] });
    return typeof claims === 'object' ? claims : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The claims of a token this app signed, or undefined when the signature, the algorithm or the
 * claims are wrong or it has expired. Only JWT_ALGORITHM is accepted. Whether its session still
 * lives is for the guard to read.
 */
export async function verifyAccessToken(ctx: KeyContext, token: string): Promise<AccessTokenClaims | undefined> {
  const claims = ctx.config.JWT_ALGORITHM === 'HS256' ? verifyWithSecret(ctx.config, token) : await verifyWithKeyPair(ctx, token);
  // jsonwebtoken checks exp only when a token has one: every claim this app signs must be there.
  if (!claims || typeof claims.sub !== 'string' || typeof claims.sid !== 'string' || typeof claims.jti !== 'string') return undefined;
  if (typeof claims.iat !== 'number' || typeof claims.exp !== 'number' || typeof claims.auth_time !== 'number') return undefined;
  const actor: unknown = claims.act;
  if (actor !== undefined && (typeof actor !== 'object' || actor === null || typeof (actor as { sub?: unknown }).sub !== 'string')) return undefined;
  const actorId = (actor as { sub: string } | undefined)?.sub;
  return { userId: claims.sub, sessionId: claims.sid, signedInAt: new Date(claims.auth_time * 1000), ...(actorId ? { actorId } : {}) };
}
