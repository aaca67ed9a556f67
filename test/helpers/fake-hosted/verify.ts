/** How a fake service checks a token it is shown: its own key, picked by kid, algorithm pinned to that key. */
import { jwtVerify, type JWTPayload, type JWTVerifyOptions, type ProtectedHeaderParameters } from 'jose';
import type { SigningKey } from './keys.js';

/**
 * The verified claims, or a rejection. `findKey` picks the service's key for the header (undefined:
 * no such key); the header's `alg` must be that key's algorithm. Expiry and not-before are checked.
 */
export async function verifyIssued(
  token: string,
  findKey: (header: ProtectedHeaderParameters) => SigningKey | undefined,
  options: JWTVerifyOptions = {},
): Promise<JWTPayload> {
  const { payload } = await jwtVerify(
    token,
    (header) => {
      const key = findKey(header);
      if (!key) throw new Error(header.kid === undefined ? 'missing kid' : `no signing key with kid ${header.kid}`);
      if (header.alg !== key.alg) throw new Error(`signing method ${header.alg} is invalid`);
      return key.alg === 'HS256' ? key.secret : key.publicKey;
    },
    options,
  );
  return payload;
}
