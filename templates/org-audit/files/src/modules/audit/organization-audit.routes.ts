import { Router } from 'express';
import type { AppContext } from '../../context.js';
import { validate } from '../../http/validate.js';
import { currentCaller, requireAuth } from '../auth/guard.js';
import { findMembership } from '../organizations/membership.js';
import { requireRole } from '../organizations/roles.js';
import { auditQuery } from './audit-log.schemas.js';
import { auditPage } from './audit-log.service.js';

/**
 * An organization's audit log, for its owners and admins (an organization key with the admin role
 * and orgs:read too, so a service can pull it into a SIEM). Non-members get 404.
 */
export function createOrganizationAuditRoutes(ctx: AppContext): Router {
  const router = Router();

  router.get('/api/organizations/:orgId/audit-log', requireAuth(ctx, { apiKeyScope: 'orgs:read' }), async (req, res) => {
    const membership = await findMembership(ctx, String(req.params.orgId), currentCaller(res));
    requireRole(membership.role, ['owner', 'admin']);
    res.json(await auditPage(ctx, { organizationId: membership.organizationId }, validate(auditQuery, req.query)));
  });

  return router;
}
