import { Router, type Request } from 'express';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { pageQuery } from '../../http/pagination.js';
import { validate } from '../../http/validate.js';
import { currentAuth, requireAuth } from '../auth/guard.js';
import { findMembership } from '../organizations/membership.js';
import { requireRole } from '../organizations/roles.js';
import { newKeyBody } from './api-keys.schemas.js';
import { createOrganizationKey, deleteOrganizationKey, listOrganizationKeys } from './organization-keys.service.js';

/**
 * An organization's API keys, its service accounts, managed by its owners and admins. Every route
 * needs a person signed in (a key cannot make or end keys: 403 SESSION_REQUIRED); making a key
 * needs a recent sign-in. A non-member gets 404, as on every organization route.
 */
export function createOrganizationKeyRoutes(ctx: AppContext): Router {
  const router = Router();
  // An admin acting as a user (impersonation) manages no keys.
  const auth = requireAuth(ctx, { noImpersonation: true });
  const newKey = newKeyBody(ctx.config).extend({
    role: z.enum(['member', 'admin'], { error: 'role must be member or admin (a key is never an owner)' }),
  });
  const param = (req: Request, name: string) => String(req.params[name]);
  const managerOf = async (req: Request, res: Parameters<typeof currentAuth>[0]) => {
    const membership = await findMembership(ctx, param(req, 'orgId'), currentAuth(res));
    requireRole(membership.role, ['owner', 'admin']);
    return membership;
  };

  router.post('/api/organizations/:orgId/api-keys', requireAuth(ctx, { recentSignIn: true, noImpersonation: true }), async (req, res) => {
    const membership = await managerOf(req, res);
    res.status(201).json(await createOrganizationKey(ctx, membership, currentAuth(res).user, validate(newKey, req.body)));
  });

  router.get('/api/organizations/:orgId/api-keys', auth, async (req, res) => {
    res.json(await listOrganizationKeys(ctx, await managerOf(req, res), validate(pageQuery, req.query)));
  });

  router.delete('/api/organizations/:orgId/api-keys/:keyId', auth, async (req, res) => {
    await deleteOrganizationKey(ctx, await managerOf(req, res), param(req, 'keyId'));
    res.status(204).end();
  });

  return router;
}
