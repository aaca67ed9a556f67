import type { Request } from 'express';
import { ipKeyGenerator } from 'express-rate-limit';
import type { AppContext } from '../../context.js';
import { AppError } from '../../http/app-error.js';
import { rateLimited } from '../../http/rate-limit.js';

/**
 * Refreshes are limited like the other credential routes (RATE_LIMIT_MAX per
 * RATE_LIMIT_WINDOW_SECONDS, 0 turns it off), with one difference: a refresh with a live token
 * counts toward its session's budget, not its client address's. Hundreds of browsers behind one
 * office address keep refreshing, and nobody else on that address can use their budget up. Refused
 * refreshes (an unknown, used or expired token) count per address, as on every other route.
 * Counters are ctx.counters: in Redis with REDIS_URL, so every instance shares them.
 */
const windowMs = (ctx: AppContext) => ctx.config.RATE_LIMIT_WINDOW_SECONDS * 1000;

/** Counts a refresh of the session before its token is rotated; past the budget, 429 and nothing rotates. */
export async function admitSessionRefresh(ctx: AppContext, sessionId: string): Promise<void> {
  if (ctx.config.RATE_LIMIT_MAX === 0) return;
  const { count, resetAt } = await ctx.counters.increment(`refresh:session:${sessionId}`, windowMs(ctx));
  if (count > ctx.config.RATE_LIMIT_MAX) throw rateLimited(resetAt, 'Too many refreshes of this session.');
}

/** Runs a refresh; one the client got wrong counts toward its address's budget, and past it the answer is 429. */
export async function countingRefusedRefreshes<Result>(ctx: AppContext, req: Request, refresh: () => Promise<Result>): Promise<Result> {
  try {
    return await refresh();
  } catch (error) {
    const refused = error instanceof AppError && error.status >= 400 && error.status < 500 && error.status !== 429;
    if (refused && ctx.config.RATE_LIMIT_MAX > 0) {
      // IPv6 clients count by /56, as express-rate-limit counts them on the other routes.
      const { count, resetAt } = await ctx.counters.increment(`refresh:refused:${ipKeyGenerator(req.ip ?? '')}`, windowMs(ctx));
      if (count > ctx.config.RATE_LIMIT_MAX) throw rateLimited(resetAt);
    }
    throw error;
  }
}
