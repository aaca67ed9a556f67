import type { ExpressAuthConfig } from '@auth/express';
import { Router, type RequestHandler } from 'express';
import type { AppContext } from '../../../context.js';
import { invalidToken } from '../../../http/app-error.js';
import { allowFormBody } from '../../../http/json-body.js';
import { serviceNotConfigured, signInWithService, type HostedService } from '../hosted/hosted-sign-in.js';
import { warnNotConfigured } from '../not-configured.js';
import { sendLoginResult } from '../refresh-transport.js';
import { signInFrom } from '../sessions.js';
import { AUTHJS_PATH, authjsOptions } from './authjs-options.js';
import { browserSession, markExchanged, profileOf } from './authjs-session.js';

export const authjs: HostedService = { id: 'authjs', name: 'Auth.js' };

/**
 * Auth.js builds every URL it hands out (the mailed sign-in link, its callbacks and redirects)
 * from the request it is given, and @auth/express takes that from the request's Host and protocol,
 * which the client chooses. So before Auth.js sees a request, both are set from API_URL.
 */
function pinToApiUrl(apiUrl: string): RequestHandler {
  const { host, protocol } = new URL(apiUrl);
  return (req, _res, next) => {
    req.headers.host = host;
    delete req.headers['x-forwarded-host'];
    delete req.headers['x-forwarded-proto'];
    Object.defineProperty(req, 'protocol', { value: protocol.slice(0, -1), configurable: true });
    next();
  };
}

/**
 * @auth/express (with all of Auth.js) is imported on the first request that needs it, not when
 * the app starts: it is the largest import of the app, and most processes never serve a sign-in
 * page. The promise is kept, so it is imported once.
 */
function lazyExpressAuth(options: ExpressAuthConfig): RequestHandler {
  let handler: Promise<RequestHandler> | undefined;
  return (req, res, next) => {
    handler ??= import('@auth/express').then(({ ExpressAuth }) => ExpressAuth(options));
    handler.then((handle) => handle(req, res, next)).catch(next);
  };
}

/** Auth.js's error types, as the codes the front end's callback page knows from OAuth sign-ins. */
const ERROR_CODES: Record<string, string> = {
  AccessDenied: 'access_denied',
  Verification: 'invalid_token',
  MissingCSRF: 'invalid_state',
  OAuthAccountNotLinked: 'account_exists',
  AccountNotLinked: 'account_exists',
};

/**
 * Auth.js sends a failed sign-in (a used or expired link, a stale form) to its error page, which
 * answers some client mistakes with a 500 page. The app sends the browser to the front end's
 * callback page instead, like a failed OAuth sign-in: {APP_URL}/auth/callback?error=<code>.
 */
function toFrontEndError(appUrl: string): RequestHandler {
  return (req, res) => {
    const type = typeof req.query.error === 'string' ? req.query.error : '';
    res.redirect(302, `${appUrl}/auth/callback?${new URLSearchParams({ error: ERROR_CODES[type] ?? 'provider_error' })}`);
  };
}

/**
 * Auth.js under /api/auth/authjs, and POST /api/auth/authjs/exchange, which turns
 * the browser's Auth.js session into the app's token response (or the mfa answer). Only Auth.js's
 * documented actions are passed to it; anything else under the prefix is the app's 404.
 */
export function createAuthjsRoutes(ctx: AppContext): Router {
  const router = Router();
  const secret = ctx.config.AUTH_SECRET;
  if (!secret) {
    warnNotConfigured(ctx.config, ctx.logger, authjs.name, ['AUTH_SECRET']);
    router.use(AUTHJS_PATH, () => {
      throw serviceNotConfigured(authjs, ['AUTH_SECRET']);
    });
    return router;
  }

  router.post(`${AUTHJS_PATH}/exchange`, ctx.rateLimit('authjs-exchange'), async (req, res) => {
    const session = await browserSession(ctx, req);
    if (!session) throw invalidToken('No Auth.js session: sign in with Auth.js first.');
    // Marked before any token is issued, so a logout right after it always finds the session.
    await markExchanged(ctx, session);
    sendLoginResult(req, res, ctx.config, await signInWithService(ctx, authjs, profileOf(session.user), signInFrom(req, authjs.id)));
  });

  const options = authjsOptions(ctx, secret);
  // Auth.js's own pages post HTML forms; everything else the app takes is JSON.
  for (const { id } of options.providers.map((provider) => (typeof provider === 'function' ? provider() : provider))) {
    allowFormBody(`${AUTHJS_PATH}/signin/${id}`);
    allowFormBody(`${AUTHJS_PATH}/callback/${id}`);
  }
  allowFormBody(`${AUTHJS_PATH}/signout`);

  const auth = Router();
  const handle = [pinToApiUrl(ctx.config.API_URL), lazyExpressAuth(options)];
  // Starting a sign-in may send a mail: rate limited per client IP.
  auth.post('/signin/:provider', ctx.rateLimit('authjs-sign-in'), ...handle);
  for (const path of ['/signout', '/callback/:provider']) auth.post(path, ...handle);
  for (const path of ['/csrf', '/providers', '/session', '/signin', '/signout', '/verify-request', '/callback/:provider']) auth.get(path, ...handle);
  auth.get('/error', toFrontEndError(ctx.config.APP_URL));
  router.use(AUTHJS_PATH, auth);
  return router;
}
