import type { Logger } from '../logger.js';
import type { RedisClient } from '../redis.js';

export interface Count {
  count: number;
  /** When the window ends, in ms since the epoch. */
  resetAt: number;
}

/**
 * Counters that expire: per-address mail limits and the two-factor lock. In memory, or in Redis
 * when REDIS_URL is set so that several instances count together. A Redis failure counts as zero
 * and is logged: an outage must not lock every user out.
 */
export interface CounterStore {
  /** Adds one; the first hit starts a window of windowMs. */
  increment(key: string, windowMs: number): Promise<Count>;
  /** The current count, or undefined when the key has no open window. */
  peek(key: string): Promise<Count | undefined>;
}

function memoryStore(): CounterStore {
  const counts = new Map<string, Count>();
  const open = (key: string, now: number) => {
    const entry = counts.get(key);
    if (entry && entry.resetAt <= now) counts.delete(key);
    return entry && entry.resetAt > now ? entry : undefined;
  };
  const sweep = (now: number) => {
    for (const [key, entry] of counts) if (entry.resetAt <= now) counts.delete(key);
  };
  const timer = setInterval(() => sweep(Date.now()), 60_000);
  timer.unref();
  return {
    increment: async (key, windowMs) => {
      const now = Date.now();
      const entry = open(key, now) ?? { count: 0, resetAt: now + windowMs };
      entry.count += 1;
      counts.set(key, entry);
      return { ...entry };
    },
    peek: async (key) => {
      const entry = open(key, Date.now());
      return entry && { ...entry };
    },
  };
}

function redisStore(client: RedisClient, logger: Logger): CounterStore {
  const prefix = 'counter:';
  const failOpen = (error: unknown): Count => {
    logger.warn({ err: error }, 'counter store unavailable; not counting');
    return { count: 0, resetAt: Date.now() };
  };
  return {
    increment: async (key, windowMs) => {
      try {
        const [count, ttl] = (await client
          .multi()
          .incr(prefix + key)
          .pExpire(prefix + key, windowMs, 'NX')
          .pTTL(prefix + key)
          .exec()) as unknown as [number, number, number];
        return { count: Number(count), resetAt: Date.now() + Math.max(0, Number(ttl)) };
      } catch (error) {
        return failOpen(error);
      }
    },
    peek: async (key) => {
      try {
        const [value, ttl] = (await client.multi().get(prefix + key).pTTL(prefix + key).exec()) as unknown as [string | null, number];
        if (value === null || Number(ttl) <= 0) return undefined;
        return { count: Number(value), resetAt: Date.now() + Number(ttl) };
      } catch (error) {
        failOpen(error);
        return undefined;
      }
    },
  };
}

export function createCounterStore(redis: RedisClient | undefined, logger: Logger): CounterStore {
  return redis ? redisStore(redis, logger) : memoryStore();
}
