import type { JWTPayload } from 'jose';
import type { PrismaClient } from '../../../generated/prisma/client.js';
import { currentSigningKey, findSigningKey, privateJwkOf, type KeyContext } from './signing-key-store.js';

/** RFC 9068: the media type of a JWT access token, in its `typ` header. */
export const ACCESS_TOKEN_TYPE = 'at+jwt';

/**
 * Signs claims with the current key pair (EdDSA or ES256), with the header `kid` and `typ: at+jwt`.
 * The claims carry `iss` and `aud` (see access-tokens.ts).
 */
export async function signWithKeyPair(ctx: KeyContext, claims: JWTPayload): Promise<string> {
  // jose is loaded with the first token signed or checked with a key pair; an HS256 app never loads it.
  const { importJWK, SignJWT } = await import('jose');
  const key = await currentSigningKey(ctx);
  const privateKey = await importJWK(privateJwkOf(ctx, key), key.algorithm);
  return new SignJWT(claims).setProtectedHeader({ alg: key.algorithm, kid: key.id, typ: ACCESS_TOKEN_TYPE }).sign(privateKey);
}

/**
 * Public keys already read, per database, by kid. A kid is the thumbprint of its public key, so an
 * entry never goes stale and a key made by another instance is found on its first token. A kid not
 * known is looked up in the database each time it comes, as every token's session is.
 */
const publicKeys = new WeakMap<PrismaClient, Map<string, CryptoKey>>();

async function publicKeyFor(ctx: KeyContext, kid: string | undefined): Promise<CryptoKey> {
  let known = publicKeys.get(ctx.prisma);
  if (!known) {
    known = new Map();
    publicKeys.set(ctx.prisma, known);
  }
  const cached = kid === undefined ? undefined : known.get(kid);
  if (cached) return cached;
  const { errors, importJWK } = await import('jose');
  const stored = kid === undefined ? null : await findSigningKey(ctx, kid);
  if (!stored) throw new errors.JWKSNoMatchingKey();
  const key = (await importJWK(JSON.parse(stored.publicKey), stored.algorithm)) as CryptoKey;
  known.set(stored.id, key);
  return key;
}

/**
 * The claims of a token signed with one of this app's key pairs, or undefined. Only the configured
 * algorithm is accepted (never HS256 or `none`), with a published key's signature, `typ: at+jwt`,
 * `iss` = API_URL, `aud` = JWT_AUDIENCE, and not expired; verifyAccessToken checks the other claims.
 */
export async function verifyWithKeyPair(ctx: KeyContext, token: string): Promise<JWTPayload | undefined> {
  const { errors, jwtVerify } = await import('jose');
  try {
    const { payload } = await jwtVerify(token, (header) => publicKeyFor(ctx, header.kid), {
      algorithms: [ctx.config.JWT_ALGORITHM],
      typ: ACCESS_TOKEN_TYPE,
      issuer: ctx.config.API_URL,
      audience: ctx.config.JWT_AUDIENCE,
    });
    return payload;
  } catch (error) {
    // Every reason to refuse the token is a JOSEError; anything else (the database away while an
    // unknown kid was looked up) is the server's problem, not the token's.
    if (error instanceof errors.JOSEError) return undefined;
    throw error;
  }
}
