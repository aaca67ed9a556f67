/** Identifiers and secrets shaped like the services' own. */
import { randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `length` random characters from [0-9A-Za-z]. */
export function base62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length)) {
      // 248 = 4 * 62: dropping higher bytes keeps every character equally likely.
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

/** A Clerk object id such as `user_2NNEqL2nrIRdJ194ndJqAHwEfxC` (prefix, underscore, 27 characters). */
export function clerkId(prefix: 'user' | 'sess' | 'idn' | 'ins'): string {
  return `${prefix}_${base62(27)}`;
}

/** `bytes` random bytes as lowercase hex. */
export function hex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

export function base64url(data: string | Buffer): string {
  return Buffer.from(data).toString('base64url');
}

/** Seconds since the epoch, as JWT NumericDate. */
export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
