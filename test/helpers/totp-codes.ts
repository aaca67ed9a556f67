/**
 * RFC 6238 (TOTP over RFC 4226 HOTP) written out with node:crypto, independent of the library the
 * generated apps use, so tests compute codes the way an authenticator app does.
 */
import { createHmac } from 'node:crypto';


export function base32Decode(text: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const char of text.replace(/=+$/, '').toUpperCase()) {
    const value = alphabet.indexOf(char);
    if (value < 0) throw new Error(`not base32: ${text}`);
    bits += value.toString(2).padStart(5, '0');
  }
  return Buffer.from((bits.match(/.{8}/g) ?? []).map((byte) => parseInt(byte, 2)));
}

export function hotp(key: Buffer, counterValue: number, digits = 6): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counterValue));
  const mac = createHmac('sha1', key).update(message).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 10 ** digits).padStart(digits, '0');
}

export const totpAt = (secret: string, step: number) => hotp(base32Decode(secret), step);
export const currentStep = () => Math.floor(Date.now() / 30_000);
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What a test knows of an authenticator: the secret, and the last time step it used. */
export interface TotpDevice {
  secret: string;
  lastStep: number;
}

/**
 * A code of the first time step after the last one used that the server accepts now (it accepts
 * the previous, current and next step); waits for the clock when that step is still ahead.
 */
export async function nextCode(account: TotpDevice): Promise<string> {
  const step = Math.max(account.lastStep + 1, currentStep());
  while (step > currentStep() + 1) await sleep(250);
  account.lastStep = step;
  return totpAt(account.secret, step);
}

/** A six-digit code that matches none of the steps the server accepts now or in the next step. */
export function wrongCode(secret: string): string {
  const valid = new Set([-1, 0, 1, 2].map((delta) => totpAt(secret, currentStep() + delta)));
  for (let value = 123456; ; value++) {
    const candidate = String(value % 1_000_000).padStart(6, '0');
    if (!valid.has(candidate)) return candidate;
  }
}
