import type { Config } from './config.js';
import type { Logger } from './logger.js';

/** Waits between reconnection attempts: 100 ms, doubling up to 2 s, then every 2 s for as long as it takes. */
export function reconnectDelay(retries: number): number {
  return Math.min(100 * 2 ** retries, 2000);
}

/** The client library is imported only when REDIS_URL is set: apps without Redis never load it. */
async function newClient(url: string) {
  const { createClient } = await import('redis');
  return createClient({
    url,
    // While Redis is away, commands fail at once (callers count nothing and let the request
    // through) instead of waiting in a queue for Redis to come back.
    disableOfflineQueue: true,
    socket: { connectTimeout: 5000, reconnectStrategy: reconnectDelay },
  });
}

export type RedisClient = Awaited<ReturnType<typeof newClient>>;

/**
 * The one Redis connection, when REDIS_URL is set: rate-limit counters, per-address mail limits
 * and the two-factor lock live there, so every instance shares them. Start-up waits for Redis;
 * a later outage is logged once and the client reconnects in the background.
 */
export async function connectRedis(config: Config, logger: Logger): Promise<RedisClient | undefined> {
  if (!config.REDIS_URL) return undefined;
  const client = await newClient(config.REDIS_URL);
  let reachable = true;
  client.on('error', (error: Error) => {
    if (reachable) logger.warn({ err: error }, 'redis unreachable; reconnecting, and counting nothing meanwhile');
    reachable = false;
  });
  client.on('ready', () => {
    if (!reachable) logger.info('redis reachable again');
    reachable = true;
  });
  await client.connect();
  return client;
}
