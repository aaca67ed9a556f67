import type { AppContext, BackgroundTask } from '../../context.js';
import { pruneChain } from './audit-chain.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const EVERY_MS = 60 * 60 * 1000;

/**
 * Prunes events older than AUDIT_RETENTION_DAYS from the start of the chain, at start-up and every
 * hour (0 keeps everything). Instances may prune at once: each does it in a transaction that moves
 * the chain's start, and the second finds nothing older left.
 */
export function startAuditRetention(ctx: AppContext): BackgroundTask {
  const days = ctx.config.AUDIT_RETENTION_DAYS;
  if (days === 0) return { stop: async () => {} };
  let running: Promise<void> | undefined;
  const run = () => {
    running ??= ctx.prisma
      .$transaction((tx) => pruneChain(tx, new Date(Date.now() - days * DAY_MS)))
      .then((pruned) => {
        if (pruned > 0) ctx.logger.info({ pruned }, `audit events older than ${days} days pruned`);
      })
      .catch((error: unknown) => ctx.logger.warn({ err: error }, 'could not prune the audit log; trying again later'))
      .finally(() => {
        running = undefined;
      });
  };
  run();
  const timer = setInterval(run, EVERY_MS);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
