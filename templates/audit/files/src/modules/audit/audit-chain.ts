import { createHash } from 'node:crypto';
import type { AuditEvent } from '../../generated/prisma/client.js';
import type { Db } from '../auth/account-events.js';

/** What the first event follows: no event. */
export const GENESIS_HASH = '0'.repeat(64);
const CHAIN_ID = 1;

/** An event's fields that its hash covers: every column but the hashes themselves. */
type Hashed = Pick<AuditEvent, 'id' | 'seq' | 'occurredAt' | 'action' | 'actorType' | 'actorId' | 'targetType' | 'targetId' | 'organizationId' | 'ip' | 'userAgent' | 'metadata'>;

const HASHED_FIELDS = ['action', 'actorId', 'actorType', 'id', 'ip', 'metadata', 'occurredAt', 'organizationId', 'seq', 'targetId', 'targetType', 'userAgent'] as const satisfies readonly (keyof Hashed)[];

/**
 * The event as JSON with its keys in a fixed (sorted) order, so that the same event always hashes
 * the same. Only the hashed fields are taken: a row read back also carries its hashes.
 */
function canonicalJson(event: Hashed): string {
  return JSON.stringify(Object.fromEntries(HASHED_FIELDS.map((key) => [key, key === 'occurredAt' ? event.occurredAt.toISOString() : event[key]])));
}

/** SHA-256 of the previous event's hash followed by this event's canonical JSON. */
export function hashEvent(prevHash: string, event: Hashed): string {
  return createHash('sha256').update(prevHash).update(canonicalJson(event)).digest('hex');
}

/**
 * Appends an event to the chain, inside the caller's transaction. The chain row is written first:
 * on PostgreSQL that locks it until the transaction ends, so events of concurrent requests and of
 * every instance take consecutive places one at a time (SQLite has one writer anyway).
 */
export async function appendToChain(db: Db, event: Omit<Hashed, 'seq'>): Promise<AuditEvent> {
  const chain = await db.auditChain.upsert({
    where: { id: CHAIN_ID },
    create: { id: CHAIN_ID, lastSeq: 1, lastHash: GENESIS_HASH, firstSeq: 1, firstPrevHash: GENESIS_HASH },
    update: { lastSeq: { increment: 1 } },
  });
  const chained = { ...event, seq: chain.lastSeq };
  const hash = hashEvent(chain.lastHash, chained);
  const created = await db.auditEvent.create({ data: { ...chained, prevHash: chain.lastHash, hash } });
  await db.auditChain.update({ where: { id: CHAIN_ID }, data: { lastHash: hash } });
  return created;
}

export type ChainProblem = { seq: number; id: string | null; problem: 'changed' | 'removed' | 'inserted' };

/**
 * Checks the chain from its oldest kept event to its end, reading it a page at a time. Returns how
 * many events hold, or the first event that was changed, removed or inserted.
 */
export async function verifyChain(db: Db): Promise<{ events: number } | ChainProblem> {
  const chain = await db.auditChain.findUnique({ where: { id: CHAIN_ID } });
  if (!chain) {
    const stray = await db.auditEvent.findFirst({ orderBy: { seq: 'asc' } });
    return stray ? { seq: stray.seq, id: stray.id, problem: 'inserted' } : { events: 0 };
  }
  let expectedSeq = chain.firstSeq;
  let expectedPrev = chain.firstPrevHash;
  let previous: { seq: number; id: string } | null = null;
  let count = 0;
  for (;;) {
    const page = await db.auditEvent.findMany({ where: { seq: { gte: expectedSeq } }, orderBy: { seq: 'asc' }, take: 1000 });
    if (page.length === 0) break;
    for (const event of page) {
      if (event.seq > chain.lastSeq) return { seq: event.seq, id: event.id, problem: 'inserted' };
      if (event.seq !== expectedSeq) return { seq: expectedSeq, id: null, problem: 'removed' };
      if (hashEvent(event.prevHash, event) !== event.hash) return { seq: event.seq, id: event.id, problem: 'changed' };
      // The event is whole but does not follow the one before, whose own hash holds: that one was
      // rewritten (or put in another's place) with its hash computed again after this was chained.
      if (event.prevHash !== expectedPrev) return previous ? { ...previous, problem: 'changed' } : { seq: event.seq, id: event.id, problem: 'inserted' };
      expectedPrev = event.hash;
      expectedSeq += 1;
      previous = { seq: event.seq, id: event.id };
      count += 1;
    }
  }
  const before = await db.auditEvent.findFirst({ where: { seq: { lt: chain.firstSeq } }, orderBy: { seq: 'asc' } });
  if (before) return { seq: before.seq, id: before.id, problem: 'inserted' };
  if (expectedSeq <= chain.lastSeq) return { seq: expectedSeq, id: null, problem: 'removed' };
  // The last event was rewritten with its hash computed again: the chain's end no longer leads to it.
  if (expectedPrev !== chain.lastHash) return { seq: chain.lastSeq, id: previous?.id ?? null, problem: 'changed' };
  return { events: count };
}

/**
 * Deletes the events that occurred before `before`, from the start of the chain only, and moves the
 * chain's start to the oldest kept event, so what is kept still verifies from there. Run it in a
 * transaction.
 */
export async function pruneChain(db: Db, before: Date): Promise<number> {
  const newest = await db.auditEvent.findFirst({ where: { occurredAt: { lt: before } }, orderBy: { seq: 'desc' }, select: { seq: true } });
  if (!newest) return 0;
  // Written first, like an append, so no event is chained while the start moves.
  const chain = await db.auditChain.update({ where: { id: CHAIN_ID }, data: { firstSeq: newest.seq + 1 } });
  const kept = await db.auditEvent.findUnique({ where: { seq: newest.seq + 1 }, select: { prevHash: true } });
  const { count } = await db.auditEvent.deleteMany({ where: { seq: { lte: newest.seq } } });
  await db.auditChain.update({ where: { id: CHAIN_ID }, data: { firstPrevHash: kept?.prevHash ?? chain.lastHash } });
  return count;
}
