import { Router, type Request } from 'express';
import type { AppContext } from '../../context.js';
import { pageQuery } from '../../http/pagination.js';
import { validate } from '../../http/validate.js';
import { currentAuth, requireAuth } from '../auth/guard.js';
import { newKeyBody, renameKeyBody } from './api-keys.schemas.js';
import { createUserKey, deleteUserKey, listUserKeys, renameUserKey } from './api-keys.service.js';

/**
 * The signed-in user's own API keys. Every route needs a session: a key cannot make, list or end
 * keys (403 SESSION_REQUIRED), and making one needs a recent sign-in.
 */
export function createApiKeyRoutes(ctx: AppContext): Router {
  const router = Router();
  // An admin acting as the user (impersonation) manages no keys.
  const auth = requireAuth(ctx, { noImpersonation: true });
  const newKey = newKeyBody(ctx.config);
  const id = (req: Request) => String(req.params.id);

  router.post('/api/auth/api-keys', requireAuth(ctx, { recentSignIn: true, noImpersonation: true }), async (req, res) => {
    res.status(201).json(await createUserKey(ctx, currentAuth(res).user, validate(newKey, req.body)));
  });

  router.get('/api/auth/api-keys', auth, async (req, res) => {
    res.json(await listUserKeys(ctx, currentAuth(res).user, validate(pageQuery, req.query)));
  });

  router.patch('/api/auth/api-keys/:id', auth, async (req, res) => {
    res.json({ apiKey: await renameUserKey(ctx, currentAuth(res).user, id(req), validate(renameKeyBody, req.body).name) });
  });

  router.delete('/api/auth/api-keys/:id', auth, async (req, res) => {
    await deleteUserKey(ctx, currentAuth(res).user, id(req));
    res.status(204).end();
  });

  return router;
}
