import { pino, type Logger } from 'pino';

export type { Logger };

/** JSON lines. Secrets are redacted wherever they might appear, and bodies are never logged. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: undefined,
    redact: {
      paths: [
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
      ],
      censor: '[redacted]',
    },
  });
}
