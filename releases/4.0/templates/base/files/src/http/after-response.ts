import type { Response } from 'express';
import type { Logger } from '../logger.js';

/**
 * Runs work once the answer has been sent, so its duration (a database lookup, a mail) cannot tell
 * a client anything, such as whether an account exists. Failures are logged.
 */
export function afterResponse(res: Response, logger: Logger, work: () => Promise<unknown>): void {
  res.once('finish', () => {
    work().catch((error: unknown) => logger.error({ err: error }, 'work after the response failed'));
  });
}
