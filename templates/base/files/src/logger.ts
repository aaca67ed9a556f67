import { pino, type Logger } from 'pino';

export type { Logger };

const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  '*.password',
  '*.currentPassword',
  '*.newPassword',
  '*.token',
  '*.code',
  '*.secret',
  '*.recoveryCode',
  '*.mfaToken',
  'password',
  'token',
  'secret',
];

/**
 * JSON lines. Secrets are redacted wherever they might appear, and bodies are never logged.
 * Lines are written to stdout asynchronously (and flushed on exit), so a request never waits for
 * the terminal or the log collector.
 */
export function createLogger(level: string): Logger {
  return pino({ level, base: undefined, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, pino.destination({ dest: 1, sync: false }));
}
