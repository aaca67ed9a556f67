import type { JWK } from 'jose';
import type { AppContext } from '../../../context.js';
import type { Prisma, SigningKey } from '../../../generated/prisma/client.js';
import { isUniqueViolation } from '../../../http/database-errors.js';
import { decryptPrivateKey, encryptedUnder, encryptPrivateKey } from './key-encryption.js';

/** What the signing keys need: the configuration and the database. */
export type KeyContext = Pick<AppContext, 'config' | 'prisma'>;

/** How long verifiers may cache /.well-known/jwks.json. */
export const JWKS_MAX_AGE_SECONDS = 300;

/**
 * A key signs no sooner than this after it was published: the JWKS max-age plus a minute, so every
 * verifier that follows the max-age holds it by then.
 */
export const NEXT_KEY_DELAY_MS = (JWKS_MAX_AGE_SECONDS + 60) * 1000;

const DAY_MS = 86_400_000;

/*
 * The life of a key, per algorithm:
 *   next       published, activatesAt empty: exactly one, waiting for the next rotation;
 *   scheduled  activatesAt set by a rotation, in the future (the current key still signs);
 *   current    the newest key whose activatesAt has passed: it signs;
 *   retired    retiresAt passed: still published until expiresAt, when its last token expires.
 * A rotation schedules the next key (at once if it was published 360 s ago or more), retires the
 * keys signing until then at that moment, and publishes a new next key. So a verifier that cached
 * the key set before a rotation already holds the key that signs after it.
 */

/** The configured algorithm, which has key pairs (EdDSA or ES256). */
function keyPairAlgorithm(ctx: KeyContext): 'EdDSA' | 'ES256' {
  const algorithm = ctx.config.JWT_ALGORITHM;
  if (algorithm === 'HS256') throw new Error('JWT_ALGORITHM is HS256: access tokens are signed with JWT_SECRET, not with a key pair');
  return algorithm;
}

function keyEncryptionKeys(ctx: KeyContext) {
  const keys = ctx.config.KEY_ENCRYPTION_KEYS;
  if (!keys) throw new Error('KEY_ENCRYPTION_KEYS is not set');
  return keys;
}

/**
 * Every stored key of the configured algorithm, newest first (a handful: the next, current and
 * retired ones until their tokens expire). Each change to the keys is decided on one such read and
 * numbers its new keys after the newest key in it: an instance that read before another's change
 * committed then adds a generation that already exists, and its change fails whole (see changeKeys).
 */
function keysOfAlgorithm(ctx: KeyContext): Promise<SigningKey[]> {
  return ctx.prisma.signingKey.findMany({ where: { algorithm: keyPairAlgorithm(ctx) }, orderBy: { generation: 'desc' } });
}

/** The keys that have not retired: current, scheduled and next. */
const openAt = (keys: SigningKey[], now: Date) => keys.filter((key) => key.retiresAt === null || key.retiresAt > now);

const newestGeneration = (keys: SigningKey[]) => keys[0]?.generation ?? 0;

/** A new key pair as a row to store, its private half encrypted under the first KEY_ENCRYPTION_KEYS entry. */
async function newKey(ctx: KeyContext, generation: number, activatesAt: Date | null) {
  const algorithm = keyPairAlgorithm(ctx);
  // jose is loaded when the first key pair is made or used; an HS256 app never loads it.
  const { calculateJwkThumbprint, exportJWK, generateKeyPair } = await import('jose');
  const pair = await generateKeyPair(algorithm, { extractable: true });
  const { kty, crv, x, y } = await exportJWK(pair.publicKey);
  const publicJwk = { kty, crv, x, y };
  const id = await calculateJwkThumbprint(publicJwk);
  const encryptedPrivateKey = encryptPrivateKey(JSON.stringify(await exportJWK(pair.privateKey)), id, keyEncryptionKeys(ctx));
  return { id, algorithm, generation, publicKey: JSON.stringify(publicJwk), encryptedPrivateKey, activatesAt };
}

/**
 * Runs the writes of one change to the keys as a transaction. Every change adds a key numbered
 * after the newest it read, and (algorithm, generation) is unique: of two instances changing the
 * keys at once, one succeeds and the other gets false, with nothing written.
 */
async function changeKeys(ctx: KeyContext, writes: Prisma.PrismaPromise<unknown>[]): Promise<boolean> {
  try {
    await ctx.prisma.$transaction(writes);
    return true;
  } catch (error) {
    if (isUniqueViolation(error)) return false;
    throw error;
  }
}

/** The first key, signing at once (no verifier can hold an older set), and the next one, published with it. */
async function addFirstKeys(ctx: KeyContext, keys: SigningKey[], now: Date): Promise<boolean> {
  const generation = newestGeneration(keys);
  const [current, next] = [await newKey(ctx, generation + 1, now), await newKey(ctx, generation + 2, null)];
  return changeKeys(ctx, [ctx.prisma.signingKey.create({ data: current }), ctx.prisma.signingKey.create({ data: next })]);
}

/**
 * Schedules the next key to sign from its publication plus NEXT_KEY_DELAY_MS (at once when that
 * has passed), retires the keys signing until then at that moment (deleted once their last token
 * has expired, JWT_EXPIRES_IN later), and publishes a new next key. Returns the scheduled key's
 * kid and start, or undefined when another instance rotated at the same moment.
 */
async function rotate(ctx: KeyContext, keys: SigningKey[], now: Date): Promise<Omit<Rotation, 'reencrypted'> | undefined> {
  const { signingKey } = ctx.prisma;
  const algorithm = keyPairAlgorithm(ctx);
  const generation = newestGeneration(keys);
  const waiting = openAt(keys, now).find((key) => key.activatesAt === null);
  const activatesAt = new Date(Math.max(now.getTime(), (waiting?.createdAt ?? now).getTime() + NEXT_KEY_DELAY_MS));
  const expiresAt = new Date(activatesAt.getTime() + ctx.config.JWT_EXPIRES_IN * 1000);
  // Without a next key (rows removed by hand), one is made to take over 360 s from now.
  const replacement = waiting ? undefined : await newKey(ctx, generation + 1, activatesAt);
  const next = await newKey(ctx, generation + (replacement ? 2 : 1), null);
  const kid = waiting?.id ?? replacement!.id;
  const rotated = await changeKeys(ctx, [
    signingKey.updateMany({ where: { algorithm, retiresAt: null, NOT: { activatesAt: null } }, data: { retiresAt: activatesAt, expiresAt } }),
    replacement ? signingKey.create({ data: replacement }) : signingKey.updateMany({ where: { id: kid, activatesAt: null }, data: { activatesAt } }),
    signingKey.create({ data: next }),
  ]);
  return rotated ? { kid, activatesAt, nextKid: next.id } : undefined;
}

/**
 * The key that signs now: the newest whose activatesAt has passed. Every instance reads it from
 * the database, so all agree. Without keys yet, the first one and the next one are made. When the
 * current key has signed for SIGNING_KEY_ROTATION_DAYS, this rotates (the token being signed still
 * gets the current key).
 */
export async function currentSigningKey(ctx: KeyContext, now = new Date()): Promise<SigningKey> {
  let keys = await keysOfAlgorithm(ctx);
  if (!openAt(keys, now).some((key) => key.activatesAt)) {
    // Another instance may make them at the same moment: then theirs are read back.
    await addFirstKeys(ctx, keys, now);
    keys = await keysOfAlgorithm(ctx);
  }
  const scheduled = openAt(keys, now).filter((key): key is SigningKey & { activatesAt: Date } => key.activatesAt !== null);
  // An instance whose clock runs behind the one that made the first key sees it as not yet active.
  const current = scheduled.find((key) => key.activatesAt <= now) ?? scheduled.at(-1);
  if (!current) throw new Error('no signing key could be made');
  const newest = scheduled[0]!;
  if (newest.activatesAt.getTime() <= now.getTime() - ctx.config.SIGNING_KEY_ROTATION_DAYS * DAY_MS) await rotate(ctx, keys, now);
  return current;
}

/** The private JWK of a stored key, decrypted with KEY_ENCRYPTION_KEYS. */
export function privateJwkOf(ctx: KeyContext, key: SigningKey): JWK {
  return JSON.parse(decryptPrivateKey(key.encryptedPrivateKey, key.id, keyEncryptionKeys(ctx)));
}

/**
 * The keys of the configured algorithm published at /.well-known/jwks.json: the next one, any
 * scheduled, the current one, and retired ones until their last token has expired.
 */
export function publishedSigningKeys(ctx: KeyContext, now = new Date()): Promise<SigningKey[]> {
  return ctx.prisma.signingKey.findMany({
    where: { algorithm: keyPairAlgorithm(ctx), OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] },
    orderBy: { generation: 'desc' },
  });
}

/** One key of the configured algorithm by its kid, whatever its state. */
export function findSigningKey(ctx: KeyContext, kid: string): Promise<SigningKey | null> {
  return ctx.prisma.signingKey.findFirst({ where: { id: kid, algorithm: keyPairAlgorithm(ctx) } });
}

export interface Rotation {
  /** The key that takes over signing. */
  kid: string;
  /** When it does. */
  activatesAt: Date;
  /** The new next key, published now. */
  nextKid: string;
  /** Stored keys that were encrypted under another KEY_ENCRYPTION_KEYS entry than the first. */
  reencrypted: number;
}

/**
 * `keys:rotate`: re-encrypts every stored private key under the first KEY_ENCRYPTION_KEYS entry,
 * then rotates: the next key signs from 360 s after its publication (at once when that has
 * passed) and a new next key is published. Without keys yet, the first two are made.
 */
export async function rotateSigningKeys(ctx: KeyContext, now = new Date()): Promise<Rotation> {
  const reencrypted = await reencryptSigningKeys(ctx);
  const keys = await keysOfAlgorithm(ctx);
  if (!openAt(keys, now).some((key) => key.activatesAt)) {
    await addFirstKeys(ctx, keys, now);
    const [next, current] = openAt(await keysOfAlgorithm(ctx), now);
    if (!next || !current) throw new Error('no signing key could be made');
    return { kid: current.id, activatesAt: current.activatesAt!, nextKid: next.id, reencrypted };
  }
  const rotation = await rotate(ctx, keys, now);
  if (!rotation) throw new Error('another instance rotated the signing keys at the same moment; run keys:rotate again if one rotation is not enough');
  return { ...rotation, reencrypted };
}

/** Re-encrypts under the first KEY_ENCRYPTION_KEYS entry every stored key encrypted under another; returns how many. */
export async function reencryptSigningKeys(ctx: KeyContext): Promise<number> {
  const keys = keyEncryptionKeys(ctx);
  const stored = await ctx.prisma.signingKey.findMany({ select: { id: true, encryptedPrivateKey: true } });
  let count = 0;
  for (const key of stored.filter((candidate) => encryptedUnder(candidate.encryptedPrivateKey) !== keys[0]!.id)) {
    const encryptedPrivateKey = encryptPrivateKey(decryptPrivateKey(key.encryptedPrivateKey, key.id, keys), key.id, keys);
    // Only if nothing changed it meanwhile (another keys:rotate).
    count += (await ctx.prisma.signingKey.updateMany({ where: { id: key.id, encryptedPrivateKey: key.encryptedPrivateKey }, data: { encryptedPrivateKey } })).count;
  }
  return count;
}
