import type { RequestHandler } from 'express';
import { rateLimit, type RateLimitInfo } from 'express-rate-limit';
import { RedisStore } from 'rate-limit-redis';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { RedisClient } from '../redis.js';
import { AppError } from './app-error.js';

/** Returns the limiter for one route, e.g. rateLimit('login'); each route counts separately. */
export type RateLimitFactory = (name: string) => RequestHandler;

const passThrough: RequestHandler = (_req, _res, next) => next();

/**
 * Per-IP limits on the routes that accept credentials or send mail. Counters live in memory,
 * or in Redis when REDIS_URL is set so that every instance shares them.
 */
export function createRateLimits(config: Config, client: RedisClient | undefined, logger: Logger): RateLimitFactory {
  if (config.RATE_LIMIT_MAX === 0) return () => passThrough;
  // express-rate-limit reports store errors here; an outage is a warning, the request goes through.
  const storeLog = {
    warn: (error: unknown, message?: string) => logger.warn({ err: error }, message ?? 'rate limit store'),
    error: (error: unknown, message?: string) => logger.warn({ err: error }, message ?? 'rate limit store'),
  };

  return (name) =>
    rateLimit({
      windowMs: config.RATE_LIMIT_WINDOW_SECONDS * 1000,
      limit: config.RATE_LIMIT_MAX,
      standardHeaders: 'draft-7',
      legacyHeaders: false,
      // A Redis outage must not lock every user out; it is logged instead.
      passOnStoreError: true,
      logger: storeLog,
      store: client
        ? new RedisStore({ prefix: `rate-limit:${name}:`, sendCommand: (...args: string[]) => client.sendCommand(args) })
        : undefined,
      validate: { trustProxy: false },
      handler: (req, _res, next) => {
        const { resetTime: reset } = (req as typeof req & { rateLimit?: RateLimitInfo }).rateLimit ?? {};
        const resetTime = reset?.getTime() ?? Date.now() + config.RATE_LIMIT_WINDOW_SECONDS * 1000;
        const retryAfter = Math.max(1, Math.ceil((resetTime - Date.now()) / 1000));
        next(
          new AppError(429, 'RATE_LIMITED', `Too many requests. Try again in ${retryAfter} seconds.`, undefined, {
            'Retry-After': String(retryAfter),
          }),
        );
      },
    });
}
