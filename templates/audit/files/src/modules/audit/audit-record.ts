import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../context.js';
import type { PrismaClient } from '../../generated/prisma/client.js';
import type { AccountEvent, Db } from '../auth/account-events.js';
import { AUDIT_ACTIONS } from './audit-actions.js';
import { appendToChain } from './audit-chain.js';

/**
 * The app's client itself, when `db` is not one of its transactions. A transaction's client has no
 * $connect (Prisma's TransactionClient type omits it), while it does have a $transaction of its own
 * (a savepoint), so that is no test.
 */
const rootClient = (db: Db): PrismaClient | undefined => ('$connect' in db ? (db as PrismaClient) : undefined);

/** Metadata may name things, never carry them: these keys are refused whatever module sends them. */
const SECRET_KEYS = /password|passphrase|token|secret|code$|recoveryCode|^key$|apiKey|^otp|hash/i;

/**
 * The events hook (events.ts): records an event in the caller's transaction, so the change and its
 * event commit together or not at all, and with webhooks on puts it in the outbox in the same
 * transaction, so a restart loses none.
 */
export async function recordAuditEvent(db: Db, event: AccountEvent, ctx: Pick<AppContext, 'config'>): Promise<void> {
  if (!AUDIT_ACTIONS.includes(event.action)) throw new Error(`The audit event ${event.action} is declared by no module (the manifests' events)`);
  const metadata = event.metadata ?? {};
  const secret = Object.keys(metadata).find((key) => SECRET_KEYS.test(key));
  if (secret) throw new Error(`The audit event ${event.action} carries '${secret}' in its metadata; events never hold secrets`);
  // An event recorded on its own (a failed sign-in, an export) is given a transaction of its own:
  // the chain's row stays locked from the append's first write to its last, as in a change's.
  const root = rootClient(db);
  if (root) return root.$transaction((tx) => recordAuditEvent(tx, event, ctx));
  const created = await appendToChain(db, {
    id: randomUUID(),
    occurredAt: new Date(),
    action: event.action,
    actorType: event.actor.type,
    actorId: event.actor.id,
    targetType: event.target?.type ?? null,
    targetId: event.target?.id ?? null,
    organizationId: event.organizationId ?? null,
    ip: event.client?.ip ?? null,
    userAgent: event.client?.userAgent ?? null,
    metadata: JSON.stringify(metadata),
  });
  if (ctx.config.AUDIT_WEBHOOK_URL && ctx.config.AUDIT_WEBHOOK_SECRET) {
    await db.auditDelivery.create({ data: { eventId: created.id, nextAttemptAt: created.occurredAt } });
  }
}
