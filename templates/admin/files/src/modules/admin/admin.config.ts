import { wholeNumber } from '../../config/base-config.js';

export const adminConfig = {
  /** How long an impersonation session lives at most; it is never refreshed. */
  IMPERSONATION_MINUTES: wholeNumber(1, 24 * 60).default(60),
};
