import type { Config } from './config.js';
import type { Logger } from './logger.js';

/** The client library is imported only when REDIS_URL is set: apps without Redis never load it. */
async function newClient(url: string) {
  const { createClient } = await import('redis');
  return createClient({
    url,
    socket: { connectTimeout: 5000, reconnectStrategy: (retries) => (retries > 5 ? new Error('Redis is unreachable') : retries * 200) },
  });
}

export type RedisClient = Awaited<ReturnType<typeof newClient>>;

/**
 * The one Redis connection, when REDIS_URL is set: rate-limit counters, per-address mail limits
 * and the two-factor lock live there, so every instance shares them.
 */
export async function connectRedis(config: Config, logger: Logger): Promise<RedisClient | undefined> {
  if (!config.REDIS_URL) return undefined;
  const client = await newClient(config.REDIS_URL);
  client.on('error', (error: Error) => logger.error({ err: error }, 'redis error'));
  await client.connect();
  return client;
}
