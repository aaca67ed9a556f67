import { wholeNumber } from '../../config/base-config.js';

export const organizationsConfig = {
  INVITE_EXPIRY_DAYS: wholeNumber(1, 365).default(7),
};
