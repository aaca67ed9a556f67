import { z } from 'zod';

export const magicLinkConfig = {
  MAGIC_LINK_EXPIRY_MINUTES: z.coerce.number().int().min(1).max(24 * 60).default(15),
  MAGIC_LINK_SIGNUP: z
    .enum(['true', 'false', '1', '0', ''])
    .optional()
    .transform((value) => value !== 'false' && value !== '0'),
};
