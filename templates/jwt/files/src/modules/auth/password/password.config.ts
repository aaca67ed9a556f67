import { z } from 'zod';

export const passwordConfig = {
  BCRYPT_COST: z.coerce.number().int().min(4).max(15).default(12),
};
