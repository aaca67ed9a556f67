import { z } from 'zod';

export const organizationsConfig = {
  INVITE_EXPIRY_DAYS: z.coerce.number().int().min(1).max(365).default(7),
};
