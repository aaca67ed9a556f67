import express, { Router, type RequestHandler } from 'express';
import { z } from 'zod';
import type { AppContext } from '../../../context.js';
import { AppError, invalidToken } from '../../../http/app-error.js';
import { allowFormBody, BODY_LIMIT } from '../../../http/json-body.js';
import { validate } from '../../../http/validate.js';
import { completeLogin } from '../complete-login.js';
import { currentAuth, requireAuth } from '../guard.js';
import { setFlowCookie } from './flow-cookie.js';
import { callbackParams, failSignIn, handleCallback } from './oauth-callback.js';
import type { ClientCredentials, OAuthProvider } from './oauth-provider.js';
import { oauth2Strategy } from './oauth2-strategy.js';
import { oidcStrategy } from './oidc-strategy.js';
import { createLinkTicket, redeemExchangeCode, redeemLinkTicket } from './one-time-codes.js';
import { ProviderError } from './provider-error.js';
import { providerList } from './provider-list.js';
import { safeReturnTo } from './return-to.js';

const exchangeBody = z.object({ code: z.string({ error: 'code is required' }).trim().min(1, 'code is required').max(512) });
const linkBody = z.object({ returnTo: z.string().optional() });

const notConfigured = (provider: OAuthProvider) =>
  new AppError(404, 'PROVIDER_NOT_CONFIGURED', `${provider.name} sign-in is not configured on this server.`);

function configuredCredentials(ctx: AppContext, provider: OAuthProvider): ClientCredentials {
  const credentials = provider.credentials(ctx.config);
  if (!credentials) throw notConfigured(provider);
  return credentials;
}

/** GET /api/auth/{provider}: a 302 to the provider, with the flow in an encrypted cookie. */
function startSignIn(ctx: AppContext, provider: OAuthProvider): RequestHandler {
  return async (req, res) => {
    const credentials = configuredCredentials(ctx, provider);
    const returnTo = safeReturnTo(req.query.returnTo);
    const ticket = typeof req.query.link === 'string' ? req.query.link : undefined;
    const linkUserId = ticket ? await redeemLinkTicket(ctx, ticket) : undefined;
    if (ticket && !linkUserId) return failSignIn(ctx, res, provider, 'invalid_state', 'link ticket unknown, used or expired');
    const flow = { returnTo, ...(linkUserId ? { linkUserId } : {}) };
    try {
      const started =
        provider.protocol === 'oidc'
          ? await oidcStrategy.start(ctx.config, provider, credentials, flow)
          : await oauth2Strategy.start(ctx.config, provider, credentials, flow);
      await setFlowCookie(res, ctx.config, started.flow);
      res.redirect(302, started.url.href);
    } catch (error) {
      // Whatever stops the start at the provider's side (discovery, an unusable endpoint) is provider_error, never a 500.
      return failSignIn(ctx, res, provider, 'provider_error', error instanceof ProviderError ? error.message : `could not start: ${(error as Error).message}`);
    }
  };
}

/**
 * A provider that posts its callback (Apple's response_mode=form_post) posts it cross-site, and a
 * SameSite=Lax cookie does not come along. The POST answers 303 to the GET callback with the same
 * parameters: a top-level GET carries the cookie, and the state check stays exactly as strict.
 */
function formPostCallback(ctx: AppContext, provider: OAuthProvider): RequestHandler {
  return (req, res) => {
    const params = callbackParams((req.body ?? {}) as Record<string, unknown>);
    res.redirect(303, `${ctx.config.API_URL}/api/auth/${provider.id}/callback?${new URLSearchParams(params)}`);
  };
}

/**
 * OAuth sign-in for every provider of this app (CONTRACT B.6): start, callback, link, and the
 * exchange of the one-time code for the app's own token response.
 */
export function createOAuthRoutes(ctx: AppContext): Router {
  const router = Router();
  const recentAuth = requireAuth(ctx, { recentSignIn: true });

  for (const provider of providerList) {
    const base = `/api/auth/${provider.id}`;
    // Each start and each callback may cost a token request with the app's secret: both are limited.
    router.get(base, ctx.rateLimit(`${provider.id}-start`), startSignIn(ctx, provider));
    router.get(`${base}/callback`, ctx.rateLimit(`${provider.id}-callback`), (req, res) => handleCallback(ctx, provider, req, res));
    if (provider.formPost) {
      allowFormBody(`${base}/callback`);
      router.post(`${base}/callback`, express.urlencoded({ extended: false, limit: BODY_LIMIT }), formPostCallback(ctx, provider));
    }
    // Linking is a security change: it needs a recent sign-in. The browser carries no Bearer
    // token, so the URL holds a single-use ticket naming the caller.
    router.post(`${base}/link`, ctx.rateLimit('identity-link'), recentAuth, async (req, res) => {
      configuredCredentials(ctx, provider);
      const returnTo = safeReturnTo(validate(linkBody, req.body).returnTo);
      const link = await createLinkTicket(ctx, currentAuth(res).user.id);
      res.json({ url: `${ctx.config.API_URL}${base}?${new URLSearchParams({ link, returnTo })}` });
    });
  }

  router.post('/api/auth/exchange', ctx.rateLimit('exchange'), async (req, res) => {
    const userId = await redeemExchangeCode(ctx, validate(exchangeBody, req.body).code);
    const user = userId ? await ctx.prisma.user.findUnique({ where: { id: userId } }) : null;
    if (!user) throw invalidToken('The sign-in code is invalid, expired or already used.');
    res.json(await completeLogin(ctx, user));
  });

  return router;
}
