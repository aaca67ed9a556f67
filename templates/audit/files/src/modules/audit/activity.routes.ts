import { Router } from 'express';
import { ConfigError } from '../../config.js';
import type { AppContext } from '../../context.js';
import { validate } from '../../http/validate.js';
import { currentAuth, requireAuth } from '../auth/guard.js';
import { auditQuery } from './audit-log.schemas.js';
import { auditPage } from './audit-log.service.js';

/** The signed-in user's own security activity: events they did, and events done to their account. */
export function createActivityRoutes(ctx: AppContext): Router {
  // The webhook carries every event (who, from which address): never in the clear in production.
  const webhook = ctx.config.AUDIT_WEBHOOK_URL;
  if (ctx.config.NODE_ENV === 'production' && webhook && new URL(webhook).protocol !== 'https:') {
    throw new ConfigError('Invalid configuration:\n  AUDIT_WEBHOOK_URL must be an https:// URL in production');
  }
  const router = Router();

  router.get('/api/auth/activity', requireAuth(ctx), async (req, res) => {
    const { id } = currentAuth(res).user;
    res.json(await auditPage(ctx, { OR: [{ actorId: id }, { targetType: 'user', targetId: id }] }, validate(auditQuery, req.query)));
  });

  return router;
}
