import { Router } from 'express';
import type { AppContext } from '../../context.js';
import { validate } from '../../http/validate.js';
import { requireAdmin } from '../admin/admin-guard.js';
import { adminAuditQuery } from './audit-log.schemas.js';
import { auditPage } from './audit-log.service.js';

/** Every event, for admins (never an API key or an impersonation), also by actor, target and organization. */
export function createAdminAuditRoutes(ctx: AppContext): Router {
  const router = Router();

  router.get('/api/admin/audit-log', ...requireAdmin(ctx), async (req, res) => {
    const { actorId, targetId, organizationId, ...query } = validate(adminAuditQuery, req.query);
    const where = { ...(actorId ? { actorId } : {}), ...(targetId ? { targetId } : {}), ...(organizationId ? { organizationId } : {}) };
    res.json(await auditPage(ctx, where, query));
  });

  return router;
}
