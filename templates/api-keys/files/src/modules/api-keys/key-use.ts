import type { AppContext } from '../../context.js';
import { rateLimited } from '../../http/rate-limit.js';

const MINUTE_MS = 60_000;

/**
 * API_KEY_RATE_LIMIT requests per minute per key (0: no limit), counted in ctx.counters: in Redis
 * with REDIS_URL, so every instance counts together.
 */
export async function limitKeyRate(ctx: AppContext, keyId: string): Promise<void> {
  const limit = ctx.config.API_KEY_RATE_LIMIT;
  if (limit === 0) return;
  const { count, resetAt } = await ctx.counters.increment(`api-key:${keyId}`, MINUTE_MS);
  if (count > limit) throw rateLimited(resetAt, 'Too many requests with this API key.');
}

/**
 * Whether a key last noted as used at `lastUsedAt` should be noted again now: at most once a
 * minute, so a busy key costs no write on every request. `write` is a conditional update (only if
 * nobody else noted it within the minute), so instances do not all write at once.
 */
export async function noteKeyUse(lastUsedAt: Date | null, write: (notBefore: Date, now: Date) => Promise<unknown>): Promise<void> {
  const now = new Date();
  const notBefore = new Date(now.getTime() - MINUTE_MS);
  if (lastUsedAt && lastUsedAt > notBefore) return;
  await write(notBefore, now);
}
