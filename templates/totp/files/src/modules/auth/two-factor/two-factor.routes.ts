import { Router } from 'express';
import type { AppContext } from '../../../context.js';
import { validate } from '../../../http/validate.js';
import { currentAuth, requireAuth } from '../guard.js';
import { codeBody, disableBody, verifyBody } from './two-factor.schemas.js';
import * as twoFactor from './two-factor.service.js';

/** TOTP two-factor authentication: setup, enable, the second sign-in step, disable, recovery codes. */
export function createTwoFactorRoutes(ctx: AppContext): Router {
  if (ctx.config.NODE_ENV === 'production' && !ctx.config.TOTP_ENCRYPTION_KEY) {
    ctx.logger.warn('TOTP_ENCRYPTION_KEY is not set: TOTP secrets are encrypted with a key derived from JWT_SECRET, so changing JWT_SECRET makes them unreadable');
  }
  const router = Router();
  const auth = requireAuth(ctx);
  // Guessing codes with a stolen access token is limited like guessing them at sign-in.
  const manage = ctx.rateLimit('2fa-manage');

  router.post('/api/auth/2fa/setup', auth, async (_req, res) => {
    res.json(await twoFactor.setUp(ctx, currentAuth(res).user));
  });

  router.post('/api/auth/2fa/enable', auth, manage, async (req, res) => {
    res.json(await twoFactor.enable(ctx, currentAuth(res).user, validate(codeBody, req.body).code));
  });

  router.post('/api/auth/2fa/verify', ctx.rateLimit('2fa-verify'), async (req, res) => {
    res.json(await twoFactor.verify(ctx, validate(verifyBody, req.body)));
  });

  router.post('/api/auth/2fa/disable', auth, manage, async (req, res) => {
    res.json(await twoFactor.disable(ctx, currentAuth(res).user, validate(disableBody, req.body)));
  });

  router.post('/api/auth/2fa/recovery-codes', auth, manage, async (req, res) => {
    res.json(await twoFactor.regenerateRecoveryCodes(ctx, currentAuth(res).user, validate(codeBody, req.body).code));
  });

  return router;
}
