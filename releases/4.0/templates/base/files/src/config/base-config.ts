import { z } from 'zod';
import { parseDuration } from './duration.js';
import { parseTrustProxy } from './trust-proxy.js';

/** The placeholder shipped in .env.example; production refuses to start with it. */
export const JWT_SECRET_PLACEHOLDER = 'replace-with-a-random-secret-of-at-least-32-characters';

/** How to make a secret, shown when one is missing or too short. */
export const SECRET_HINT = `generate one with: node -e "console.log(crypto.randomBytes(32).toString('hex'))"`;

/**
 * A whole number in a range. z.coerce.number() alone would report "expected number, received NaN";
 * this says what the variable needs instead.
 */
export function wholeNumber(min: number, max?: number) {
  const need = `must be a whole number ${max === undefined ? `of at least ${min}` : `from ${min} to ${max}`}`;
  const number = z.coerce.number({ error: need }).int(need).min(min, need);
  return max === undefined ? number : number.max(max, need);
}

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
  PORT: wholeNumber(1, 65535).default(3000),
  API_URL: optionalString.pipe(z.url().optional()),
  APP_URL: optionalString.pipe(z.url().optional()),
  DATABASE_URL: z.string({ error: 'is required: the database connection URL (file:./dev.db for SQLite)' }).trim().min(1, 'is required: the database connection URL'),
  // `JWT_SECRET=` (empty) is as missing as no line at all.
  JWT_SECRET: z.preprocess(
    (value) => (value === '' ? undefined : value),
    z.string({ error: `is required: a random string of at least 32 characters; ${SECRET_HINT}` }).min(32, `must be at least 32 characters; ${SECRET_HINT}`),
  ),
  JWT_EXPIRES_IN: z
    .string()
    .default('15m')
    .transform((value, ctx) => {
      const seconds = parseDuration(value);
      if (seconds === undefined) {
        ctx.addIssue({ code: 'custom', message: 'use a duration such as 60s, 15m, 12h or 7d' });
        return z.NEVER;
      }
      return seconds;
    }),
  SESSION_IDLE_DAYS: wholeNumber(1).default(30),
  SESSION_MAX_DAYS: wholeNumber(1).default(90),
  REFRESH_REUSE_GRACE_SECONDS: wholeNumber(0).default(10),
  REAUTH_MAX_AGE_MINUTES: wholeNumber(1).default(15),
  RATE_LIMIT_MAX: wholeNumber(0).default(10),
  RATE_LIMIT_WINDOW_SECONDS: wholeNumber(1).default(60),
  TRUST_PROXY: trustProxy,
  REDIS_URL: optionalString.pipe(z.url().optional()),
  SHUTDOWN_GRACE_SECONDS: wholeNumber(0).default(10),
  CORS_ORIGINS: optionalString,
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SMTP_HOST: optionalString,
  SMTP_PORT: wholeNumber(1, 65535).default(587),
  SMTP_USER: optionalString,
  SMTP_PASS: optionalString,
  SMTP_SECURE: flag,
  MAIL_FROM: z.string().trim().default('App <no-reply@localhost>'),
  MAIL_PER_ADDRESS_MAX: wholeNumber(0).default(5),
};
