import { Router } from 'express';
import type { AppContext } from '../../../context.js';
import { afterResponse } from '../../../http/after-response.js';
import { methodNotAllowed } from '../../../http/app-error.js';
import { validate } from '../../../http/validate.js';
import { sendLoginResult } from '../refresh-transport.js';
import { signInFrom } from '../sessions.js';
import { sendMagicLinkBody, verifyMagicLinkBody } from './magic-link.schemas.js';
import { sendMagicLink, verifyMagicLink } from './magic-link.service.js';

/** Passwordless sign-in: a single-use link mailed to the address. */
export function createMagicLinkRoutes(ctx: AppContext): Router {
  const router = Router();

  // The lookup and the mail happen after the answer, so its timing says nothing about the address.
  router.post('/api/auth/magic-link/send', ctx.rateLimit('magic-link-send'), async (req, res) => {
    const { email } = validate(sendMagicLinkBody, req.body);
    res.status(202).json({ ok: true });
    afterResponse(res, ctx.logger, () => sendMagicLink(ctx, email));
  });

  router.post('/api/auth/magic-link/verify', ctx.rateLimit('magic-link-verify'), async (req, res) => {
    const { token } = validate(verifyMagicLinkBody, req.body);
    sendLoginResult(req, res, ctx.config, await verifyMagicLink(ctx, token, signInFrom(req, 'magic_link')));
  });

  // Mail scanners and link previews fetch links without anyone clicking: a GET must not use the
  // token up, so it is refused before the token is even read.
  router.get('/api/auth/magic-link/verify', () => {
    throw methodNotAllowed(['POST']);
  });

  return router;
}
