import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createLocalJWKSet, decodeProtectedHeader, type JWK, jwtVerify } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseKeyEncryptionKeys } from '../src/config/signing-config.js';
import { createPrismaClient } from '../src/db/client.js';
import { deleteExpiredRows } from '../src/db/expired-rows.js';
import type { User } from '../src/generated/prisma/client.js';
import { signAccessToken } from '../src/modules/auth/access-tokens.js';
import { currentSigningKey, type KeyContext, NEXT_KEY_DELAY_MS, publishedSigningKeys, rotateSigningKeys } from '../src/modules/auth/signing-keys/signing-key-store.js';
import { startTestApp, TEST_KEY_ENCRYPTION_KEYS, uniqueEmail, type TestApp } from './helpers/test-app.js';

const DAY_MS = 86_400_000;

let app: TestApp;
let user: User;
beforeAll(async () => {
  app = await startTestApp({ JWT_ALGORITHM: 'EdDSA' });
  user = await app.context.prisma.user.create({ data: { email: uniqueEmail() } });
});
afterAll(async () => {
  await app.close();
});
afterEach(async () => {
  vi.useRealTimers();
  // Each test starts without keys; the first token it signs makes one.
  await app.context.prisma.signingKey.deleteMany();
});

/** Only Date moves: the database driver's timers keep running. */
function clockAt(time: number) {
  vi.useFakeTimers({ toFake: ['Date'], now: time });
}

/** The kid of a fresh access token of `user`, signed through `ctx`. */
async function signingKid(ctx: KeyContext = app.context): Promise<string> {
  const session = await app.context.prisma.session.create({
    data: { userId: user.id, method: 'password', expiresAt: new Date(Date.now() + DAY_MS), maxExpiresAt: new Date(Date.now() + DAY_MS) },
  });
  return decodeProtectedHeader((await signAccessToken(ctx, session)).token).kid!;
}

const publishedKids = async () => (await publishedSigningKeys(app.context)).map((key) => key.id);

describe('signing key rotation', () => {
  it('publishes the next key with the first, signs with it only 360 s after its publication, and keeps the old one published until its tokens expire', async () => {
    const first = await signingKid();
    const [waiting] = await app.context.prisma.signingKey.findMany({ where: { activatesAt: null } });
    // Published from the start, over HTTP too.
    const { keys } = await (await app.request('/.well-known/jwks.json')).json();
    expect(keys.map((key: JWK) => key.kid)).toEqual([waiting!.id, first]);

    const rotation = await rotateSigningKeys(app.context);
    expect(NEXT_KEY_DELAY_MS).toBe(360_000);
    expect(rotation.kid).toBe(waiting!.id);
    expect(rotation.activatesAt).toEqual(new Date(waiting!.createdAt.getTime() + NEXT_KEY_DELAY_MS));
    // A new next key, published at once.
    expect(await publishedKids()).toEqual([rotation.nextKid, rotation.kid, first]);

    expect(await signingKid()).toBe(first);
    clockAt(rotation.activatesAt.getTime() - 1000);
    expect(await signingKid()).toBe(first);
    clockAt(rotation.activatesAt.getTime() + 1000);
    expect(await signingKid()).toBe(rotation.kid);

    // The old key signed until the new one took over; its last token expires JWT_EXPIRES_IN later.
    const old = await app.context.prisma.signingKey.findUniqueOrThrow({ where: { id: first } });
    expect(old.retiresAt).toEqual(rotation.activatesAt);
    expect(old.expiresAt).toEqual(new Date(rotation.activatesAt.getTime() + app.context.config.JWT_EXPIRES_IN * 1000));
    clockAt(old.expiresAt!.getTime() - 1000);
    expect(await publishedKids()).toEqual([rotation.nextKid, rotation.kid, first]);
    await deleteExpiredRows(app.context.prisma);
    expect(await app.context.prisma.signingKey.count({ where: { id: first } })).toBe(1);
    clockAt(old.expiresAt!.getTime() + 1000);
    expect(await publishedKids()).toEqual([rotation.nextKid, rotation.kid]);
    await deleteExpiredRows(app.context.prisma);
    expect(await app.context.prisma.signingKey.count({ where: { id: first } })).toBe(0);
  });

  it('lets a verifier that cached the key set before a rotation verify every token after it, without fetching again', async () => {
    await signingKid();
    const cached = createLocalJWKSet(await (await app.request('/.well-known/jwks.json')).json());
    const rotation = await rotateSigningKeys(app.context);
    const { config } = app.context;
    const session = await app.context.prisma.session.findFirstOrThrow({ where: { userId: user.id } });
    const verifiedKid = async () => {
      const { token } = await signAccessToken(app.context, session);
      return (await jwtVerify(token, cached, { issuer: config.API_URL, audience: config.JWT_AUDIENCE, typ: 'at+jwt' })).protectedHeader.kid;
    };
    const before = await verifiedKid();
    clockAt(rotation.activatesAt.getTime() + 1000);
    expect(await verifiedKid()).toBe(rotation.kid);
    expect(before).not.toBe(rotation.kid);
  });

  it('hands over at once to a next key published 360 s ago or more', async () => {
    const first = await signingKid();
    await app.context.prisma.signingKey.updateMany({ where: { activatesAt: null }, data: { createdAt: new Date(Date.now() - NEXT_KEY_DELAY_MS - 1000) } });
    const before = Date.now();
    const rotation = await rotateSigningKeys(app.context);
    expect(rotation.activatesAt.getTime()).toBeGreaterThanOrEqual(before);
    expect(rotation.activatesAt.getTime()).toBeLessThanOrEqual(Date.now());
    expect(await signingKid()).toBe(rotation.kid);
    expect(rotation.kid).not.toBe(first);
  });

  it('rotates by itself once the signing key is SIGNING_KEY_ROTATION_DAYS old', async () => {
    const first = await signingKid();
    const { prisma } = app.context;
    const days = app.context.config.SIGNING_KEY_ROTATION_DAYS;
    expect(days).toBe(90);
    const age = async (ms: number) => {
      await prisma.signingKey.update({ where: { id: first }, data: { activatesAt: new Date(Date.now() - ms), createdAt: new Date(Date.now() - ms) } });
      await prisma.signingKey.updateMany({ where: { activatesAt: null }, data: { createdAt: new Date(Date.now() - ms) } });
    };
    await age((days - 1) * DAY_MS);
    expect(await signingKid()).toBe(first);
    expect(await prisma.signingKey.count()).toBe(2);

    await age(days * DAY_MS + 1000);
    // The token being signed still gets the current key; the next one, published for 90 days, takes over at once.
    expect(await signingKid()).toBe(first);
    const keys = await prisma.signingKey.findMany({ orderBy: { generation: 'asc' } });
    expect(keys).toHaveLength(3);
    expect(keys[1]!.activatesAt!.getTime()).toBeLessThanOrEqual(Date.now());
    expect(keys[2]!.activatesAt).toBeNull();
    expect(await signingKid()).toBe(keys[1]!.id);
    expect(await prisma.signingKey.count()).toBe(3);
  });

  it('makes the first keys once when two instances sign at once, and keeps one chain of keys when rotations race', async () => {
    // A second Prisma client on the same database stands for a second instance.
    const other: KeyContext = { config: app.context.config, prisma: createPrismaClient(app.context.config.DATABASE_URL) };
    const { signingKey } = app.context.prisma;
    try {
      for (let round = 0; round < 5; round++) {
        await signingKey.deleteMany();
        const kids = await Promise.all(Array.from({ length: 8 }, (_, i) => signingKid(i % 2 ? other : app.context)));
        expect(new Set(kids).size).toBe(1);
        expect(await signingKey.count()).toBe(2);

        const rotations = await Promise.allSettled(Array.from({ length: 4 }, (_, i) => rotateSigningKeys(i % 2 ? other : app.context)));
        const done = rotations.filter((result) => result.status === 'fulfilled').length;
        expect(done).toBeGreaterThanOrEqual(1);
        for (const result of rotations) if (result.status === 'rejected') expect(String(result.reason)).toMatch(/another instance rotated the signing keys/);
        // One next key, and each scheduled key retires exactly when the one after it starts.
        const keys = await signingKey.findMany({ orderBy: { generation: 'asc' } });
        expect(keys).toHaveLength(2 + done);
        expect(keys.filter((key) => key.activatesAt === null)).toHaveLength(1);
        const scheduled = keys.filter((key) => key.activatesAt !== null);
        for (const [i, key] of scheduled.entries()) expect(key.retiresAt).toEqual(scheduled[i + 1]?.activatesAt ?? null);
      }
    } finally {
      await other.prisma.$disconnect();
    }
  });

  it('decrypts with every KEY_ENCRYPTION_KEYS entry, re-encrypts under the first on rotation, and names an entry that is missing', async () => {
    const withKeys = (value: string): KeyContext => ({ prisma: app.context.prisma, config: { ...app.context.config, KEY_ENCRYPTION_KEYS: parseKeyEncryptionKeys(value) as never } });
    const newEntry = `new:${Buffer.alloc(32, 9).toString('base64')}`;
    const first = await signingKid();
    const storedUnder = async () => (await app.context.prisma.signingKey.findMany()).map((key) => key.encryptedPrivateKey.split('.')[0]);
    expect(await storedUnder()).toEqual(['test', 'test']);

    const both = withKeys(`${newEntry},${TEST_KEY_ENCRYPTION_KEYS}`);
    expect(await signingKid(both)).toBe(first);
    const rotation = await rotateSigningKeys(both);
    expect(rotation.reencrypted).toBe(2);
    expect(await storedUnder()).toEqual(['new', 'new', 'new']);

    expect(await signingKid(withKeys(newEntry))).toBe(first);
    await expect(signingKid(withKeys(TEST_KEY_ENCRYPTION_KEYS))).rejects.toThrow(/KEY_ENCRYPTION_KEYS entry "new", which is no longer listed/);
    await expect(signingKid(withKeys(`new:${Buffer.alloc(32, 1).toString('base64')}`))).rejects.toThrow(/does not decrypt with the KEY_ENCRYPTION_KEYS entry "new"/);
  });

  it('refuses a private key moved onto another key\'s row (its kid is bound to the ciphertext)', async () => {
    const first = await signingKid();
    const waiting = await app.context.prisma.signingKey.findFirstOrThrow({ where: { activatesAt: null } });
    await app.context.prisma.signingKey.update({ where: { id: first }, data: { encryptedPrivateKey: waiting.encryptedPrivateKey } });
    expect((await currentSigningKey(app.context)).id).toBe(first);
    await expect(signingKid()).rejects.toThrow(/signing key .* does not decrypt/);
  });

  it('npm run keys:rotate rotates and says when the new key signs', async () => {
    const first = await signingKid();
    const { config } = app.context;
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/rotate-keys.ts'], {
      env: { ...process.env, NODE_ENV: 'test', DATABASE_URL: config.DATABASE_URL, JWT_SECRET: config.JWT_SECRET, JWT_ALGORITHM: 'EdDSA', KEY_ENCRYPTION_KEYS: TEST_KEY_ENCRYPTION_KEYS },
    });
    const [next, scheduled] = await publishedSigningKeys(app.context);
    expect(await publishedKids()).toEqual([next!.id, scheduled!.id, first]);
    expect(stdout).toContain(`Signing key ${scheduled!.id} (EdDSA) signs from ${scheduled!.activatesAt!.toISOString()}; the next key, ${next!.id}, is published now.`);
    expect(await signingKid()).toBe(first);
  });
});
