import { z } from 'zod';
import { optionalString, wholeNumber } from '../../config/base-config.js';

export const auditConfig = {
  AUDIT_RETENTION_DAYS: wholeNumber(0, 36_500).default(365),
  AUDIT_WEBHOOK_URL: optionalString.pipe(z.url({ error: 'must be a URL (https:// in production)' }).optional()),
  AUDIT_WEBHOOK_SECRET: optionalString.pipe(
    z
      .string()
      .regex(/^whsec_[A-Za-z0-9+/]{32,}={0,2}$/, 'must be whsec_ followed by base64 (at least 24 random bytes), as the Standard Webhooks specification has it')
      .optional(),
  ),
};
