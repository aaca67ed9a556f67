import express, { Router, type Request, type RequestHandler, type Response } from 'express';
import { z } from 'zod';
import type { AppContext } from '../../../context.js';
import type { User } from '../../../generated/prisma/client.js';
import { AppError, invalidToken } from '../../../http/app-error.js';
import { allowFormBody, BODY_LIMIT } from '../../../http/json-body.js';
import { validate } from '../../../http/validate.js';
import { completeLogin } from '../complete-login.js';
import { sendLoginResult } from '../refresh-transport.js';
import { signInFrom } from '../sessions.js';
import { currentAuth, requireAuth } from '../guard.js';
import { linkIdentity } from '../identities/identity-sign-in.js';
import { randomToken } from '../one-time-tokens.js';
import { setFlowCookie } from './flow-cookie.js';
import { callbackParams, failSignIn, handleCallback } from './oauth-callback.js';
import { clearOAuthCookie, EXCHANGE_COOKIE, LINK_COOKIE, readOAuthCookie, setOAuthCookie } from './oauth-cookies.js';
import type { ClientCredentials, OAuthProvider } from './oauth-provider.js';
import { oauth2Strategy } from './oauth2-strategy.js';
import { oidcStrategy } from './oidc-strategy.js';
import { createLinkTicket, redeemExchangeCode, redeemLinkTicket, startLinkFlow, type Binding, type PendingLink } from './one-time-codes.js';
import { ProviderError } from './provider-error.js';
import { providerList } from './provider-list.js';
import { safeReturnTo } from './return-to.js';

/** An S256 code challenge: the base64url SHA-256 of the front end's verifier (RFC 7636). */
const codeChallenge = z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'code_challenge must be the base64url S256 of a code verifier');
/** A PKCE code verifier (RFC 7636): 43 to 128 unreserved characters. */
const codeVerifier = z.string().regex(/^[A-Za-z0-9._~-]{43,128}$/, 'codeVerifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~');

// A link's code carries its sealed identity, so it is longer than a sign-in's.
const exchangeBody = z.object({ code: z.string({ error: 'code is required' }).trim().min(1, 'code is required').max(2048), codeVerifier: codeVerifier.optional() });
const linkBody = z.object({ returnTo: z.string().optional(), codeChallenge: codeChallenge.optional() });
const startQuery = z.object({ code_challenge: codeChallenge.optional() });

const notConfigured = (provider: OAuthProvider) =>
  new AppError(404, 'PROVIDER_NOT_CONFIGURED', `${provider.name} sign-in is not configured on this server.`);

function configuredCredentials(ctx: AppContext, provider: OAuthProvider): ClientCredentials {
  const credentials = provider.credentials(ctx.config);
  if (!credentials) throw notConfigured(provider);
  return credentials;
}

/**
 * The user a link URL names, provided this browser may use it: the ticket is bound to the cookie
 * that this browser's POST /link answer set, or to the code challenge the URL carries, and to the
 * provider it was made for.
 */
async function linkingUser(ctx: AppContext, provider: OAuthProvider, req: Request, res: Response, ticket: string, challenge: string | undefined): Promise<string | undefined> {
  if (challenge) return redeemLinkTicket(ctx, provider.id, ticket, { codeChallenge: challenge });
  const cookie = readOAuthCookie(req, ctx.config, LINK_COOKIE);
  if (!cookie) return undefined;
  clearOAuthCookie(res, ctx.config, LINK_COOKIE);
  return redeemLinkTicket(ctx, provider.id, ticket, { cookie });
}

/** GET /api/auth/{provider}: a 302 to the provider, with the flow in an encrypted cookie. */
function startSignIn(ctx: AppContext, provider: OAuthProvider): RequestHandler {
  return async (req, res) => {
    const credentials = configuredCredentials(ctx, provider);
    const returnTo = safeReturnTo(req.query.returnTo);
    const { code_challenge: challenge } = validate(startQuery, req.query);
    const ticket = typeof req.query.link === 'string' ? req.query.link : undefined;
    const linkUserId = ticket ? await linkingUser(ctx, provider, req, res, ticket, challenge) : undefined;
    if (ticket && !linkUserId) return failSignIn(ctx, res, provider, 'invalid_state', 'link ticket unknown, used, expired, or bound to another browser or provider');
    const flow = {
      returnTo,
      ...(challenge ? { codeChallenge: challenge } : {}),
      ...(linkUserId ? { linkUserId, linkFlow: await startLinkFlow(ctx, linkUserId) } : {}),
    };
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

/** The exchange's binding: the verifier's S256 challenge when one is sent, else the callback's cookie. */
async function exchangeBinding(verifier: string | undefined, cookie: string | undefined): Promise<Binding | undefined> {
  if (verifier) {
    const { calculatePKCECodeChallenge } = await import('openid-client');
    return { codeChallenge: await calculatePKCECodeChallenge(verifier) };
  }
  return cookie ? { cookie } : undefined;
}

/** A link bound to a code challenge attaches its identity here, once the verifier proved the front end. */
async function attachPendingLink(ctx: AppContext, user: User, pendingLink: PendingLink): Promise<User | null> {
  const result = await linkIdentity(ctx, { ...pendingLink, emailVerified: false, name: null, image: null }, user);
  return 'user' in result ? result.user : null;
}

/**
 * OAuth sign-in for every provider of this app: start, callback, link, and the
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
    // token, so the URL holds a single-use ticket naming the caller, which works only in the
    // browser this answer sets its cookie in (or, with a code challenge, for that challenge).
    router.post(`${base}/link`, ctx.rateLimit('identity-link'), recentAuth, async (req, res) => {
      configuredCredentials(ctx, provider);
      const body = validate(linkBody, req.body);
      const returnTo = safeReturnTo(body.returnTo);
      const userId = currentAuth(res).user.id;
      let query: Record<string, string>;
      if (body.codeChallenge) {
        const link = await createLinkTicket(ctx, userId, provider.id, { codeChallenge: body.codeChallenge });
        query = { link, returnTo, code_challenge: body.codeChallenge };
      } else {
        const cookie = randomToken();
        setOAuthCookie(res, ctx.config, LINK_COOKIE, cookie);
        query = { link: await createLinkTicket(ctx, userId, provider.id, { cookie }), returnTo };
      }
      res.json({ url: `${ctx.config.API_URL}${base}?${new URLSearchParams(query)}` });
    });
  }

  // The code works only in the browser that went through the callback (its cookie), or with the
  // verifier of the code challenge the flow started with: an attacker's code cannot sign a victim in.
  router.post('/api/auth/exchange', ctx.rateLimit('exchange'), async (req, res) => {
    const body = validate(exchangeBody, req.body);
    const cookie = readOAuthCookie(req, ctx.config, EXCHANGE_COOKIE);
    if (cookie) clearOAuthCookie(res, ctx.config, EXCHANGE_COOKIE);
    const binding = await exchangeBinding(body.codeVerifier, cookie);
    const redeemed = binding ? await redeemExchangeCode(ctx, body.code, binding) : undefined;
    let user = redeemed ? await ctx.prisma.user.findUnique({ where: { id: redeemed.userId } }) : null;
    if (user && redeemed?.pendingLink) user = await attachPendingLink(ctx, user, redeemed.pendingLink);
    if (!user || !redeemed) throw invalidToken('The sign-in code is invalid, expired, already used or not for this browser.');
    sendLoginResult(req, res, ctx.config, await completeLogin(ctx, user, signInFrom(req, redeemed.provider)));
  });

  return router;
}
