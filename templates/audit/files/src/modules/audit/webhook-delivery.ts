import { Webhook } from 'standardwebhooks';
import { type Config, ConfigError } from '../../config.js';
import type { AppContext, BackgroundTask } from '../../context.js';
import type { AuditDelivery, AuditEvent } from '../../generated/prisma/client.js';
import { toAuditEventView } from './audit-views.js';

/**
 * Waits before each retry, by attempts so far: the first three within ten minutes, then growing
 * to half a day, about 28 hours in all. After the last one the event is abandoned (and logged).
 */
const RETRY_DELAYS_MS = [10, 60, 300, 900, 1_800, 3_600, 7_200, 14_400, 28_800, 43_200].map((seconds) => seconds * 1000);
const TICK_MS = 2000;
const BATCH = 20;
const SEND_TIMEOUT_MS = 10_000;
/** Long enough for one batch of sends; an instance that died meanwhile frees its rows then. */
const LEASE_MS = BATCH * SEND_TIMEOUT_MS;

/**
 * The payload of one event, as the Standard Webhooks specification shapes it: `type`, `timestamp`,
 * `data`. `data` is the event as the API shows it, with its place in the chain and its hash, so a
 * receiver keeps a copy that audit:verify's answer can be checked against.
 */
function payloadOf(event: AuditEvent): string {
  return JSON.stringify({
    type: event.action,
    timestamp: event.occurredAt.toISOString(),
    data: { ...toAuditEventView(event), chain: { seq: event.seq, hash: event.hash } },
  });
}

/**
 * Checked when the app is made, before any port opens: a URL needs its secret (or no event would
 * ever be sent), and in production the URL must be https, so the events never cross the network in
 * the clear. The URL itself is not repeated (it may carry credentials).
 */
export function checkWebhookSettings(config: Config): void {
  const url = config.AUDIT_WEBHOOK_URL;
  if (url && !config.AUDIT_WEBHOOK_SECRET) {
    throw new ConfigError('Invalid configuration:\n  AUDIT_WEBHOOK_SECRET is required with AUDIT_WEBHOOK_URL: the receiver checks each event\'s signature with it (whsec_ and base64, e.g. whsec_$(openssl rand -base64 32))');
  }
  if (config.NODE_ENV === 'production' && url && new URL(url).protocol !== 'https:') {
    throw new ConfigError(`Invalid configuration:\n  AUDIT_WEBHOOK_URL must be an https:// URL in production (got ${new URL(url).protocol}): the events would cross the network in the clear`);
  }
}

/** POSTs one event, signed (webhook-id, webhook-timestamp, webhook-signature); true when the receiver answered 2xx. */
async function send(ctx: AppContext, webhook: Webhook, event: AuditEvent): Promise<true | string> {
  const payload = payloadOf(event);
  const sentAt = new Date();
  try {
    const answer = await fetch(ctx.config.AUDIT_WEBHOOK_URL!, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': event.id,
        'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
        'webhook-signature': webhook.sign(event.id, sentAt, payload),
      },
      body: payload,
      redirect: 'manual',
      signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
    });
    await answer.body?.cancel();
    return answer.ok ? true : `answered ${answer.status}`;
  } catch (error) {
    return (error as Error).name === 'TimeoutError' ? 'no answer within 10 s' : (error as Error).message;
  }
}

/** Takes due deliveries for this instance: each is leased, so another instance leaves it alone. */
async function claimDue(ctx: AppContext, now: Date): Promise<(AuditDelivery & { event: AuditEvent })[]> {
  const due = await ctx.prisma.auditDelivery.findMany({
    where: { abandonedAt: null, nextAttemptAt: { lte: now }, OR: [{ lockedUntil: null }, { lockedUntil: { lt: now } }] },
    orderBy: { nextAttemptAt: 'asc' },
    take: BATCH,
    select: { eventId: true, lockedUntil: true },
  });
  const claimed: string[] = [];
  for (const delivery of due) {
    const { count } = await ctx.prisma.auditDelivery.updateMany({
      where: { eventId: delivery.eventId, lockedUntil: delivery.lockedUntil },
      data: { lockedUntil: new Date(now.getTime() + LEASE_MS) },
    });
    if (count === 1) claimed.push(delivery.eventId);
  }
  return ctx.prisma.auditDelivery.findMany({ where: { eventId: { in: claimed } }, include: { event: true }, orderBy: { event: { seq: 'asc' } } });
}

/** One round: every due event is sent; accepted ones leave the outbox, the others wait for their next try. */
export async function deliverDueEvents(ctx: AppContext, webhook: Webhook, now = new Date()): Promise<void> {
  for (const delivery of await claimDue(ctx, now)) {
    const outcome = await send(ctx, webhook, delivery.event);
    if (outcome === true) {
      await ctx.prisma.auditDelivery.delete({ where: { eventId: delivery.eventId } });
      continue;
    }
    const attempts = delivery.attempts + 1;
    const delay = RETRY_DELAYS_MS[attempts - 1];
    await ctx.prisma.auditDelivery.update({
      where: { eventId: delivery.eventId },
      data: {
        attempts,
        lastError: outcome.slice(0, 500),
        lockedUntil: null,
        ...(delay === undefined ? { abandonedAt: new Date() } : { nextAttemptAt: new Date(Date.now() + delay) }),
      },
    });
    const log = { eventId: delivery.eventId, attempts, reason: outcome };
    if (delay === undefined) ctx.logger.error(log, 'audit webhook: event abandoned after its last retry');
    else ctx.logger.warn(log, 'audit webhook: delivery failed; it will be retried');
  }
}

/**
 * Sends the outbox every two seconds, apart from any request: a slow or dead receiver never slows
 * one. Every instance runs it; leases keep two from sending the same event at once (a crash
 * between sending and recording it sends it again: at least once). Nothing runs without
 * AUDIT_WEBHOOK_URL.
 */
export function startWebhookDelivery(ctx: AppContext): BackgroundTask {
  if (!ctx.config.AUDIT_WEBHOOK_URL || !ctx.config.AUDIT_WEBHOOK_SECRET) return { stop: async () => {} };
  const webhook = new Webhook(ctx.config.AUDIT_WEBHOOK_SECRET);
  let running: Promise<void> | undefined;
  const tick = () => {
    running ??= deliverDueEvents(ctx, webhook)
      .catch((error: unknown) => ctx.logger.warn({ err: error }, 'audit webhook: the outbox could not be read; trying again'))
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(tick, TICK_MS);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
