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
 * Each line is written to stdout when it is logged, as Node writes to pipes and files on Linux:
 * nothing is lost if the process dies, and a write costs less than handing it to another thread.
 */
export function createLogger(level: string): Logger {
  return pino({ level, base: undefined, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, pino.destination({ dest: 1, sync: true }));
}
