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

/**
 * Webhooks need both variables, and an https URL in production: the events carry IP addresses and
 * account ids, and the signature proves who sent them, not that nobody else read them.
 */
export function checkAuditWebhook(
  config: { NODE_ENV: string; AUDIT_WEBHOOK_URL?: string; AUDIT_WEBHOOK_SECRET?: string },
  ctx: z.RefinementCtx,
): void {
  const url = config.AUDIT_WEBHOOK_URL;
  if (url && !config.AUDIT_WEBHOOK_SECRET) ctx.addIssue({ code: 'custom', path: ['AUDIT_WEBHOOK_SECRET'], message: 'is required with AUDIT_WEBHOOK_URL: it signs every webhook (whsec_ and base64, e.g. whsec_$(openssl rand -base64 32))' });
  if (config.AUDIT_WEBHOOK_SECRET && !url) ctx.addIssue({ code: 'custom', path: ['AUDIT_WEBHOOK_URL'], message: 'is required with AUDIT_WEBHOOK_SECRET: where the events are sent' });
  if (url && config.NODE_ENV === 'production' && URL.canParse(url) && new URL(url).protocol !== 'https:') {
    ctx.addIssue({ code: 'custom', path: ['AUDIT_WEBHOOK_URL'], message: 'must be an https:// URL in production (NODE_ENV=production)' });
  }
}
