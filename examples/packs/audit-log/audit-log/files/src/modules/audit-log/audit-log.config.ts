import { z } from 'zod';

export const auditLogConfig = {
  AUDIT_LOG_PAGE_SIZE: z.coerce.number().int().min(1).max(200).default(50),
};
