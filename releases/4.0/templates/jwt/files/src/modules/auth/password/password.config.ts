import { wholeNumber } from '../../../config/base-config.js';

export const passwordConfig = {
  BCRYPT_COST: wholeNumber(4, 15).default(12),
};
