import { createHmac, createSecretKey, randomUUID, timingSafeEqual, type KeyObject } from 'node:crypto';
import type { Config } from '../../config.js';

/** Access tokens are HS256 only; any other algorithm (including "none") is rejected on verify. */
const ALGORITHM = 'HS256';
/** The one header this app signs: {"alg":"HS256","typ":"JWT"}, base64url-encoded. */
const HEADER = Buffer.from(JSON.stringify({ alg: ALGORITHM, typ: 'JWT' })).toString('base64url');

const keys = new WeakMap<Config, KeyObject>();

/** The HMAC key, made once per configuration. */
function signingKey(config: Config): KeyObject {
  let key = keys.get(config);
  if (!key) {
    key = createSecretKey(Buffer.from(config.JWT_SECRET, 'utf8'));
    keys.set(config, key);
  }
  return key;
}

/** HMAC-SHA256 of a token's `header.payload`. */
function hmacOf(config: Config, signed: string): Buffer {
  return createHmac('sha256', signingKey(config)).update(signed).digest();
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
  const payload = Buffer.from(JSON.stringify({ sub: userId, jti: tokenId, iat: issuedAt, exp: issuedAt + expiresIn })).toString('base64url');
  const token = `${HEADER}.${payload}.${hmacOf(config, `${HEADER}.${payload}`).toString('base64url')}`;
  return { token, tokenId, expiresIn, expiresAt: new Date((issuedAt + expiresIn) * 1000) };
}

export interface AccessTokenClaims {
  userId: string;
  tokenId: string;
  /** When the token was issued: a recent sign-in is required for security changes. */
  issuedAt: Date;
}

function decodeJson(part: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

interface VerifiedToken {
  claims: AccessTokenClaims;
  /** exp, in seconds. */
  expiresAt: number;
}

/** Tokens whose signature and claims were checked, per configuration: at most VERIFIED_TOKENS_KEPT each. */
const verifiedTokens = new WeakMap<Config, Map<string, VerifiedToken>>();
const VERIFIED_TOKENS_KEPT = 10_000;

/**
 * Checks the header (exactly the one this app signs: HS256, typ JWT, nothing else), the HMAC-SHA256 signature in
 * constant time, and the claims (sub, jti, iat, an exp in the future). Returns them, or undefined.
 *
 * A client sends the same token on every request until it expires, so the result of the check is
 * kept for the exact token text (signature included): a token seen before costs one map lookup
 * and the expiry check, not an HMAC and two decodes (docs/performance.md). Only tokens that passed
 * are kept, and whether a token is revoked is never kept: the guard reads that on every request.
 *
 * The check runs on node:crypto's HMAC, which costs a few microseconds; jose verifies through
 * WebCrypto, whose per-call overhead was the largest single cost of the guard (docs/performance.md).
 * The app's tests check both ends against jose: it verifies what this signs, and this verifies what it signs.
 */
export function verifyAccessToken(config: Config, token: string): AccessTokenClaims | undefined {
  let verified = verifiedTokens.get(config);
  if (!verified) {
    verified = new Map();
    verifiedTokens.set(config, verified);
  }
  const now = Math.floor(Date.now() / 1000);
  const known = verified.get(token);
  if (known) {
    if (known.expiresAt > now) return known.claims;
    verified.delete(token);
    return undefined;
  }
  const checked = checkAccessToken(config, token, now);
  if (checked) {
    // The oldest entry goes first: a Map iterates in insertion order.
    if (verified.size >= VERIFIED_TOKENS_KEPT) verified.delete(verified.keys().next().value!);
    verified.set(token, checked);
  }
  return checked?.claims;
}

function checkAccessToken(config: Config, token: string, now: number): VerifiedToken | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const [header, payload, signature] = parts as [string, string, string];
  if (header !== HEADER) return undefined;
  const expected = hmacOf(config, `${header}.${payload}`);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || given.toString('base64url') !== signature || !timingSafeEqual(given, expected)) return undefined;
  const claims = decodeJson(payload);
  if (typeof claims?.sub !== 'string' || typeof claims.jti !== 'string' || typeof claims.iat !== 'number' || typeof claims.exp !== 'number') return undefined;
  if (claims.exp <= now) return undefined;
  return { claims: Object.freeze({ userId: claims.sub, tokenId: claims.jti, issuedAt: new Date(claims.iat * 1000) }), expiresAt: claims.exp };
}
