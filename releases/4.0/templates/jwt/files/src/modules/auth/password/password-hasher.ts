import { createHash } from 'node:crypto';
import { AppError } from '../../../http/app-error.js';

/** bcrypt's native module loads with the first password hashed or checked, not at every start. */
const loadBcrypt = async () => (await import('bcrypt')).default;

/**
 * bcrypt runs on libuv's 4 worker threads. At most that many checks run at once and a few more
 * wait; beyond that a request gets 503 at once instead of queueing, so nobody can make every
 * sign-in wait behind a flood of password checks.
 */
const RUNNING_MAX = 4;
const WAITING_MAX = 16;

let running = 0;
const waiting: (() => void)[] = [];

const busy = () =>
  new AppError(503, 'SERVICE_UNAVAILABLE', 'Too many password checks at once. Try again in a moment.', undefined, { 'Retry-After': '1' });

async function withHashingSlot<T>(work: () => Promise<T>): Promise<T> {
  if (running >= RUNNING_MAX) {
    if (waiting.length >= WAITING_MAX) throw busy();
    await new Promise<void>((resolve) => waiting.push(resolve));
  } else {
    running += 1;
  }
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  }
}

/**
 * bcrypt reads only the first 72 bytes of its input, so two long passwords sharing a prefix would
 * both match. Hashing with SHA-256 first (base64: 44 bytes, no NUL) makes every byte count.
 */
function preHash(password: string): string {
  return createHash('sha256').update(password.normalize('NFC'), 'utf8').digest('base64');
}

export function hashPassword(password: string, cost: number): Promise<string> {
  return withHashingSlot(async () => (await loadBcrypt()).hash(preHash(password), cost));
}

export function verifyPassword(password: string, hash: string): Promise<boolean> {
  return withHashingSlot(async () => (await loadBcrypt()).compare(preHash(password), hash));
}

let dummyHash: Promise<string> | undefined;

/**
 * Spends the same time as a real check when there is no account, so login timing does not reveal
 * which emails are registered.
 */
export async function verifyAgainstDummy(password: string, cost: number): Promise<false> {
  dummyHash ??= loadBcrypt().then((bcrypt) => bcrypt.hash(preHash('gatekit-dummy-password-for-equal-timing'), cost));
  await verifyPassword(password, await dummyHash);
  return false;
}
