import { Router } from 'express';
import type { AppContext } from '../../context.js';
import { validate } from '../../http/validate.js';
import { currentAuth, requireAuth } from '../auth/guard.js';
import { auditQuery } from './audit-log.schemas.js';
import { auditPage } from './audit-log.service.js';
import { checkWebhookSettings } from './webhook-delivery.js';

/** The signed-in user's own security activity: events they did, and events done to their account. */
export function createActivityRoutes(ctx: AppContext): Router {
  // The audit module's settings are checked here, where the app is made: a bad one stops the start.
  checkWebhookSettings(ctx.config);
  const router = Router();

  router.get('/api/auth/activity', requireAuth(ctx), async (req, res) => {
    const { id } = currentAuth(res).user;
    res.json(await auditPage(ctx, { OR: [{ actorId: id }, { targetType: 'user', targetId: id }] }, validate(auditQuery, req.query)));
  });

  return router;
}
