/**
 * Signing keys for the fake services and the attacker, made with node:crypto. Public halves are
 * published as JWKs (JWKS endpoints) and SPKI PEMs (Clerk's CLERK_JWT_KEY).
 */
import { createHmac, generateKeyPair, randomBytes, sign, type JsonWebKey, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';

const generate = promisify(generateKeyPair);

export type AsymmetricAlg = 'RS256' | 'ES256';
export type SigningAlg = AsymmetricAlg | 'HS256';

export interface AsymmetricKey {
  alg: AsymmetricAlg;
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** The public key in JWKS form: `kty` and key material plus `kid`, `alg`, `use: 'sig'`, and `extra`. */
  publicJwk: JsonWebKey;
  /** `-----BEGIN PUBLIC KEY-----` SPKI PEM, 64-character lines, ending with a newline. */
  spkiPem: string;
}

export interface SecretKey {
  alg: 'HS256';
  /** Legacy HS256 tokens carry no kid. */
  kid?: undefined;
  secret: Buffer;
}

export type SigningKey = AsymmetricKey | SecretKey;

/** RS256 keys are RSA-2048 with e = 65537 (the only RSA shape Clerk's PEM loader accepts); ES256 keys are P-256. */
export async function generateSigningKey(
  alg: AsymmetricAlg,
  kid: string,
  extra: Record<string, unknown> = {},
): Promise<AsymmetricKey> {
  const { privateKey, publicKey } =
    alg === 'RS256'
      ? await generate('rsa', { modulusLength: 2048, publicExponent: 0x10001 })
      : await generate('ec', { namedCurve: 'P-256' });
  return {
    alg,
    kid,
    privateKey,
    publicKey,
    publicJwk: { ...publicKey.export({ format: 'jwk' }), kid, alg, use: 'sig', ...extra },
    spkiPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

/** A random HS256 secret written as printable text, as the services show theirs. */
export function generateSecretKey(bytes = 32): SecretKey {
  return { alg: 'HS256', secret: Buffer.from(randomBytes(bytes).toString('base64')) };
}

/** The JWS signature over `input` (RS256: PKCS#1 v1.5; ES256: raw r||s as JWS wants; HS256: HMAC). */
export function signBytes(key: SigningKey, input: string): Buffer {
  if (key.alg === 'HS256') return hmacSha256(key.secret, input);
  const data = Buffer.from(input);
  return key.alg === 'RS256'
    ? sign('sha256', data, key.privateKey)
    : sign('sha256', data, { key: key.privateKey, dsaEncoding: 'ieee-p1363' });
}

export function hmacSha256(secret: Buffer | string, input: string): Buffer {
  return createHmac('sha256', secret).update(input).digest();
}

/** Only the key material of a public JWK (`kty`, `n`/`e` or `crv`/`x`/`y`), as an embedded `jwk` header carries it. */
export function bareJwk(key: AsymmetricKey): JsonWebKey {
  const { kty, n, e, crv, x, y } = key.publicJwk;
  return kty === 'RSA' ? { kty, n, e } : { kty, crv, x, y };
}

export function jwks(keys: AsymmetricKey[]): { keys: JsonWebKey[] } {
  return { keys: keys.map((key) => key.publicJwk) };
}
