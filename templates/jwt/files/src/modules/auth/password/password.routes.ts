import { Router } from 'express';
import { ConfigError } from '../../../config.js';
import type { AppContext } from '../../../context.js';
import { validate } from '../../../http/validate.js';
import { currentAuth, requireAuth } from '../guard.js';
import { toPublicUser } from '../public-user.js';
import {
  changePasswordBody,
  forgotPasswordBody,
  loginBody,
  registerBody,
  resetPasswordBody,
  verifyEmailBody,
} from './password.schemas.js';
import * as passwords from './password.service.js';

/** Email and password: register, login, change, forgot/reset, and email verification. */
export function createPasswordRoutes(ctx: AppContext): Router {
  if (ctx.config.NODE_ENV === 'production' && ctx.config.BCRYPT_COST < 12) {
    throw new ConfigError('Invalid configuration:\n  BCRYPT_COST: must be at least 12 in production');
  }
  const router = Router();
  const auth = requireAuth(ctx);

  router.post('/api/auth/register', ctx.rateLimit('register'), async (req, res) => {
    res.status(201).json(await passwords.register(ctx, validate(registerBody, req.body)));
  });

  router.post('/api/auth/login', ctx.rateLimit('login'), async (req, res) => {
    res.json(await passwords.login(ctx, validate(loginBody, req.body)));
  });

  router.post('/api/auth/password/change', auth, async (req, res) => {
    res.json(await passwords.changePassword(ctx, currentAuth(res).user, validate(changePasswordBody, req.body)));
  });

  router.post('/api/auth/password/forgot', ctx.rateLimit('password-forgot'), async (req, res) => {
    await passwords.requestPasswordReset(ctx, validate(forgotPasswordBody, req.body).email);
    res.status(202).json({ ok: true });
  });

  router.post('/api/auth/password/reset', ctx.rateLimit('password-reset'), async (req, res) => {
    res.json(await passwords.resetPassword(ctx, validate(resetPasswordBody, req.body)));
  });

  router.post('/api/auth/email/verify/send', auth, async (_req, res) => {
    await passwords.sendEmailVerification(ctx, currentAuth(res).user);
    res.status(202).json({ ok: true });
  });

  router.post('/api/auth/email/verify', async (req, res) => {
    const user = await passwords.verifyEmail(ctx, validate(verifyEmailBody, req.body).token);
    res.json({ user: toPublicUser(user) });
  });

  return router;
}
