import { Router } from 'express';
import { ConfigError } from '../../../config.js';
import type { AppContext } from '../../../context.js';
import { afterResponse } from '../../../http/after-response.js';
import { validate } from '../../../http/validate.js';
import { currentAuth, requireAuth } from '../guard.js';
import { toPublicUser } from '../public-user.js';
import { sendLoginResult } from '../refresh-transport.js';
import { signInFrom } from '../sessions.js';
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
    sendLoginResult(req, res, ctx.config, await passwords.register(ctx, validate(registerBody, req.body), signInFrom(req, 'password')), 201);
  });

  router.post('/api/auth/login', ctx.rateLimit('login'), async (req, res) => {
    sendLoginResult(req, res, ctx.config, await passwords.login(ctx, validate(loginBody, req.body), signInFrom(req, 'password')));
  });

  router.post('/api/auth/password/change', ctx.rateLimit('password-change'), auth, async (req, res) => {
    const body = validate(changePasswordBody, req.body);
    sendLoginResult(req, res, ctx.config, await passwords.changePassword(ctx, currentAuth(res).user, body, signInFrom(req, 'password')));
  });

  // The lookup and the mail happen after the answer, so its timing says nothing about the address.
  router.post('/api/auth/password/forgot', ctx.rateLimit('password-forgot'), async (req, res) => {
    const { email } = validate(forgotPasswordBody, req.body);
    res.status(202).json({ ok: true });
    afterResponse(res, ctx.logger, () => passwords.requestPasswordReset(ctx, email));
  });

  router.post('/api/auth/password/reset', ctx.rateLimit('password-reset'), async (req, res) => {
    sendLoginResult(req, res, ctx.config, await passwords.resetPassword(ctx, validate(resetPasswordBody, req.body), signInFrom(req, 'password')));
  });

  router.post('/api/auth/email/verify/send', ctx.rateLimit('email-verify-send'), auth, async (_req, res) => {
    await passwords.sendEmailVerification(ctx, currentAuth(res).user);
    res.status(202).json({ ok: true });
  });

  // Only the signed-in owner of the link verifies: a victim who opens a link someone else
  // triggered verifies nothing.
  router.post('/api/auth/email/verify', auth, async (req, res) => {
    const user = await passwords.verifyEmail(ctx, currentAuth(res).user, validate(verifyEmailBody, req.body).token);
    res.json({ user: toPublicUser(user) });
  });

  return router;
}
