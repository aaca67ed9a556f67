import { z } from 'zod';
import { parseDuration } from './duration.js';
import { parseTrustProxy } from './trust-proxy.js';

/** The placeholder shipped in .env.example; production refuses to start with it. */
export const JWT_SECRET_PLACEHOLDER = 'replace-with-a-random-secret-of-at-least-32-characters';

/** A setting that may be empty; empty counts as unset. */
export const optionalString = z
  .string()
  .trim()
  .transform((value) => value || undefined)
  .optional();

const flag = z
  .enum(['true', 'false', '1', '0', ''])
  .optional()
  .transform((value) => value === 'true' || value === '1');

/** TRUST_PROXY: unset -> off, a number -> that many proxy hops, else a list of proxy addresses or subnets. */
const trustProxy = z
  .string()
  .trim()
  .optional()
  .transform((value, ctx) => {
    const parsed = parseTrustProxy(value);
    if (typeof parsed === 'string') {
      ctx.addIssue({ code: 'custom', message: parsed });
      return z.NEVER;
    }
    return parsed.value;
  });

export const baseConfig = {
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  HOST: z.string().trim().default('0.0.0.0'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  API_URL: optionalString.pipe(z.url().optional()),
  APP_URL: optionalString.pipe(z.url().optional()),
  DATABASE_URL: z.string().trim().min(1, 'DATABASE_URL is required'),
  JWT_SECRET: z.string().min(32, 'JWT_SECRET must be at least 32 characters'),
  JWT_EXPIRES_IN: z
    .string()
    .default('7d')
    .transform((value, ctx) => {
      const seconds = parseDuration(value);
      if (seconds === undefined) {
        ctx.addIssue({ code: 'custom', message: 'use a duration such as 60s, 15m, 12h or 7d' });
        return z.NEVER;
      }
      return seconds;
    }),
  REAUTH_MAX_AGE_MINUTES: z.coerce.number().int().min(1, 'REAUTH_MAX_AGE_MINUTES must be at least 1').default(15),
  RATE_LIMIT_MAX: z.coerce.number().int().min(0).default(10),
  RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().min(1).default(60),
  TRUST_PROXY: trustProxy,
  REDIS_URL: optionalString.pipe(z.url().optional()),
  SHUTDOWN_GRACE_SECONDS: z.coerce.number().int().min(0).default(10),
  CORS_ORIGINS: optionalString,
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SMTP_HOST: optionalString,
  SMTP_PORT: z.coerce.number().int().min(1).max(65535).default(587),
  SMTP_USER: optionalString,
  SMTP_PASS: optionalString,
  SMTP_SECURE: flag,
  MAIL_FROM: z.string().trim().default('App <no-reply@localhost>'),
  MAIL_PER_ADDRESS_MAX: z.coerce.number().int().min(0).default(5),
};
