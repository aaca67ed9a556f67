import { z } from 'zod';
import { wholeNumber } from '../../../config/base-config.js';

export const magicLinkConfig = {
  MAGIC_LINK_EXPIRY_MINUTES: wholeNumber(1, 24 * 60).default(15),
  MAGIC_LINK_SIGNUP: z
    .enum(['true', 'false', '1', '0', ''])
    .optional()
    .transform((value) => value !== 'false' && value !== '0'),
};
