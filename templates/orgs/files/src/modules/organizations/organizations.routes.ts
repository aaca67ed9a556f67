import { Router, type Request, type Response } from 'express';
import type { AppContext } from '../../context.js';
import { pageQuery } from '../../http/pagination.js';
import { validate } from '../../http/validate.js';
import { currentCaller, requireAuth } from '../auth/guard.js';
import * as invites from './invites.service.js';
import { actingUser, findMembership, findMembershipWithOrganization, type Membership } from './membership.js';
import * as members from './members.service.js';
import { changeRoleBody, createOrganizationBody, inviteBody, updateOrganizationBody } from './organization.schemas.js';
import { toOrganizationView } from './organization-views.js';
import * as organizations from './organizations.service.js';
import { requireRole } from './roles.js';

/** A named route parameter (Express types them string | string[] because of wildcard routes). */
const param = (req: Request, name: string): string => String(req.params[name]);

/**
 * Organizations, members and invites. Every :orgId route first loads the caller's membership (the
 * members page checks it inside its own query): a non-member gets 404 as if the organization did
 * not exist, then the role decides (403). API keys
 * are taken too: reading needs the orgs:read scope, changing orgs:write. A user's key acts as its
 * user; an organization's key as a member of its role in that organization only.
 */
export function createOrganizationRoutes(ctx: AppContext): Router {
  const router = Router();
  const read = requireAuth(ctx, { apiKeyScope: 'orgs:read' });
  const write = requireAuth(ctx, { apiKeyScope: 'orgs:write' });
  const membershipOf = (req: Request, res: Response): Promise<Membership> => findMembership(ctx, param(req, 'orgId'), currentCaller(res));

  router.post('/api/organizations', write, async (req, res) => {
    const input = validate(createOrganizationBody, req.body);
    res.status(201).json({ organization: await organizations.createOrganization(ctx, actingUser(currentCaller(res)), input) });
  });

  router.get('/api/organizations', read, async (req, res) => {
    res.json(await organizations.listOrganizations(ctx, currentCaller(res), validate(pageQuery, req.query)));
  });

  // The invite link's landing page: anyone holding the link may see what it is for.
  router.get('/api/organizations/invite/:token', async (req, res) => {
    res.json(await invites.previewInvite(ctx, param(req, 'token')));
  });

  router.post('/api/organizations/invite/:token/accept', write, async (req, res) => {
    res.json(await invites.acceptInvite(ctx, actingUser(currentCaller(res)), param(req, 'token')));
  });

  router.get('/api/organizations/:orgId', read, async (req, res) => {
    const membership = await findMembershipWithOrganization(ctx, param(req, 'orgId'), currentCaller(res));
    res.json({ organization: toOrganizationView(membership.organization, membership.role) });
  });

  router.put('/api/organizations/:orgId', write, async (req, res) => {
    const membership = await membershipOf(req, res);
    requireRole(membership.role, ['owner', 'admin']);
    const input = validate(updateOrganizationBody, req.body);
    res.json({ organization: await organizations.updateOrganization(ctx, membership, input) });
  });

  router.delete('/api/organizations/:orgId', write, async (req, res) => {
    const membership = await membershipOf(req, res);
    requireRole(membership.role, ['owner']);
    await organizations.deleteOrganization(ctx, membership);
    res.status(204).end();
  });

  router.post('/api/organizations/:orgId/invite', ctx.rateLimit('invite-create'), write, async (req, res) => {
    const membership = await findMembershipWithOrganization(ctx, param(req, 'orgId'), currentCaller(res));
    requireRole(membership.role, ['owner', 'admin']);
    const input = validate(inviteBody, req.body);
    res.status(201).json(await invites.createInvite(ctx, membership, input));
  });

  router.get('/api/organizations/:orgId/invites', read, async (req, res) => {
    const membership = await membershipOf(req, res);
    requireRole(membership.role, ['owner', 'admin']);
    res.json(await invites.listInvites(ctx, membership, validate(pageQuery, req.query)));
  });

  router.delete('/api/organizations/:orgId/invites/:inviteId', write, async (req, res) => {
    const membership = await membershipOf(req, res);
    requireRole(membership.role, ['owner', 'admin']);
    await invites.revokeInvite(ctx, membership, param(req, 'inviteId'));
    res.status(204).end();
  });

  router.get('/api/organizations/:orgId/members', read, async (req, res) => {
    res.json(await members.listMembers(ctx, param(req, 'orgId'), currentCaller(res), validate(pageQuery, req.query)));
  });

  // Owners and admins remove others (admins only plain members); every member may remove itself.
  router.delete('/api/organizations/:orgId/members/:id', write, async (req, res) => {
    const membership = await membershipOf(req, res);
    await members.removeMember(ctx, membership, param(req, 'id'));
    res.status(204).end();
  });

  router.put('/api/organizations/:orgId/members/:id/role', write, async (req, res) => {
    const membership = await membershipOf(req, res);
    requireRole(membership.role, ['owner']);
    const { role } = validate(changeRoleBody, req.body);
    res.json({ member: await members.changeMemberRole(ctx, membership, param(req, 'id'), role) });
  });

  return router;
}
