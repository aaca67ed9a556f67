import type { Config } from './config.js';
import type { PrismaClient } from './generated/prisma/client.js';
import type { CounterStore } from './http/counter-store.js';
import type { RateLimitFactory } from './http/rate-limit.js';
import type { Logger } from './logger.js';
import type { Mailer } from './mail/mailer.js';

/** What every route module receives: configuration and the shared services. */
export interface AppContext {
  config: Config;
  prisma: PrismaClient;
  logger: Logger;
  mailer: Mailer;
  rateLimit: RateLimitFactory;
  /** Expiring counters shared by every instance when REDIS_URL is set (mail limits, two-factor lock). */
  counters: CounterStore;
}
