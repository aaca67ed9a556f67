import { Router } from 'express';
import type { AppContext } from '../../../context.js';
import { validate } from '../../../http/validate.js';
import { currentAuth, requireAuth } from '../guard.js';
import { sendLoginResult } from '../refresh-transport.js';
import { clientOf } from '../sessions.js';
import { codeBody, disableBody, verifyBody } from './two-factor.schemas.js';
import * as twoFactor from './two-factor.service.js';

/** TOTP two-factor authentication: setup, enable, the second sign-in step, disable, recovery codes. */
export function createTwoFactorRoutes(ctx: AppContext): Router {
  if (ctx.config.NODE_ENV === 'production' && !ctx.config.TOTP_ENCRYPTION_KEY) {
    ctx.logger.warn('TOTP_ENCRYPTION_KEY is not set: TOTP secrets are encrypted with a key derived from JWT_SECRET, so changing JWT_SECRET makes them unreadable');
  }
  const router = Router();
  // Changing the second factor needs a recent sign-in: an older, perhaps stolen, token cannot
  // turn it on (locking the owner out) or off.
  const recentAuth = requireAuth(ctx, { recentSignIn: true });

  router.post('/api/auth/2fa/setup', ctx.rateLimit('2fa-setup'), recentAuth, async (_req, res) => {
    res.json(await twoFactor.setUp(ctx, currentAuth(res).user));
  });

  router.post('/api/auth/2fa/enable', ctx.rateLimit('2fa-enable'), recentAuth, async (req, res) => {
    res.json(await twoFactor.enable(ctx, currentAuth(res).user, validate(codeBody, req.body).code));
  });

  router.post('/api/auth/2fa/verify', ctx.rateLimit('2fa-verify'), async (req, res) => {
    sendLoginResult(req, res, ctx.config, await twoFactor.verify(ctx, validate(verifyBody, req.body), clientOf(req)));
  });

  router.post('/api/auth/2fa/disable', ctx.rateLimit('2fa-disable'), recentAuth, async (req, res) => {
    res.json(await twoFactor.disable(ctx, currentAuth(res).user, validate(disableBody, req.body)));
  });

  router.post('/api/auth/2fa/recovery-codes', ctx.rateLimit('2fa-recovery-codes'), recentAuth, async (req, res) => {
    res.json(await twoFactor.regenerateRecoveryCodes(ctx, currentAuth(res).user, validate(codeBody, req.body).code));
  });

  return router;
}
