import type { Request, Response } from 'express';
import type { AppContext } from '../../../context.js';
import type { User } from '../../../generated/prisma/client.js';
import { linkIdentity, signInWithIdentity, type IdentityResult } from '../identities/identity-sign-in.js';
import { randomToken } from '../one-time-tokens.js';
import type { ProviderProfile } from '../identities/provider-profile.js';
import { clearFlowCookie, readFlowCookie, type OAuthFlow } from './flow-cookie.js';
import type { CallbackParams, ClientCredentials, OAuthProvider } from './oauth-provider.js';
import { oauth2Strategy } from './oauth2-strategy.js';
import { oidcStrategy } from './oidc-strategy.js';
import { EXCHANGE_COOKIE, setOAuthCookie } from './oauth-cookies.js';
import { createExchangeCode, finishLinkFlow, markStateUsed, type Binding, type PendingLink } from './one-time-codes.js';
import { ProviderError, type OAuthErrorCode } from './provider-error.js';

/** The front end's callback page gets either a one-time code or an error code, never more. */
export function redirectToApp(ctx: AppContext, res: Response, params: Record<string, string>): void {
  res.redirect(302, `${ctx.config.APP_URL}/auth/callback?${new URLSearchParams(params)}`);
}

/** A failure: the reason goes to the log (never a code or token), the browser gets the error code. */
export function failSignIn(ctx: AppContext, res: Response, provider: OAuthProvider, error: OAuthErrorCode, reason: string): void {
  ctx.logger.warn({ provider: provider.id, error, reason }, 'oauth sign-in failed');
  redirectToApp(ctx, res, { error });
}

/** Parameters as plain strings (a repeated or nested parameter is ignored). */
export function callbackParams(values: Record<string, unknown>): CallbackParams {
  return Object.fromEntries(Object.entries(values).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

function finishWith(ctx: AppContext, provider: OAuthProvider, credentials: ClientCredentials, flow: OAuthFlow, params: CallbackParams): Promise<ProviderProfile> {
  return provider.protocol === 'oidc'
    ? oidcStrategy.finish(ctx.config, provider, credentials, flow, params)
    : oauth2Strategy.finish(ctx.config, provider, credentials, flow, params);
}

type Outcome = IdentityResult | { user: User; pendingLink: PendingLink };

/**
 * The account rules for this flow. A link bound to a code challenge is only checked here: its
 * identity is attached at the exchange, by the front end that holds the verifier.
 */
async function accountFor(ctx: AppContext, profile: ProviderProfile, flow: OAuthFlow): Promise<Outcome> {
  if (!flow.linkUserId) return signInWithIdentity(ctx, profile);
  const user = await ctx.prisma.user.findUnique({ where: { id: flow.linkUserId } });
  if (!user) return { refused: 'identity_in_use' };
  if (!flow.codeChallenge) return linkIdentity(ctx, profile, user);
  const owner = await ctx.prisma.account.findUnique({ where: { provider_providerAccountId: { provider: profile.provider, providerAccountId: profile.providerAccountId } } });
  if (owner && owner.userId !== user.id) return { refused: 'identity_in_use' };
  if (owner) return { user };
  const { provider, providerAccountId, type, email } = profile;
  return { user, pendingLink: { provider, providerAccountId, type, email } };
}

/**
 * Binds the exchange code to this browser: to the flow's code challenge when the front end sent
 * one, else to a random secret in an httpOnly cookie that only POST /api/auth/exchange receives.
 */
function bindToBrowser(ctx: AppContext, res: Response, flow: OAuthFlow): Binding {
  if (flow.codeChallenge) return { codeChallenge: flow.codeChallenge };
  const cookie = randomToken();
  setOAuthCookie(res, ctx.config, EXCHANGE_COOKIE, cookie);
  return { cookie };
}

/**
 * The callback: the state must be the cookie's and for this provider, both used once (and a link
 * flow not ended by a revocation since); then the code is redeemed, the profile read, the account
 * rules applied, and the browser sent to the front end with a one-time code bound to it.
 */
export async function handleCallback(ctx: AppContext, provider: OAuthProvider, req: Request, res: Response): Promise<void> {
  const params = callbackParams(req.query);
  const flow = await readFlowCookie(req, ctx.config);
  clearFlowCookie(res, ctx.config);
  if (!flow || flow.provider !== provider.id || !params.state || params.state !== flow.state) {
    return failSignIn(ctx, res, provider, 'invalid_state', flow ? 'state or provider does not match the cookie' : 'no flow cookie');
  }
  if (!(await markStateUsed(ctx, flow.state))) return failSignIn(ctx, res, provider, 'invalid_state', 'state used before');
  // Revoking all of the user's tokens since the link started (a password change, logout everywhere) ended it.
  if (flow.linkUserId && !(flow.linkFlow && (await finishLinkFlow(ctx, flow.linkFlow, flow.linkUserId)))) {
    return failSignIn(ctx, res, provider, 'invalid_state', 'the link flow was ended by a revocation');
  }
  if (params.error) {
    const cancelled = params.error === 'access_denied';
    return failSignIn(ctx, res, provider, cancelled ? 'access_denied' : 'provider_error', `the provider answered ${params.error.slice(0, 64).replace(/[^\w.-]/g, '?')}`);
  }
  const credentials = provider.credentials(ctx.config);
  if (!params.code || !credentials) return failSignIn(ctx, res, provider, 'provider_error', params.code ? 'not configured any more' : 'no code');
  let profile: ProviderProfile;
  try {
    profile = await finishWith(ctx, provider, credentials, flow, params);
  } catch (error) {
    if (error instanceof ProviderError) return failSignIn(ctx, res, provider, 'provider_error', error.message);
    throw error;
  }
  const result = await accountFor(ctx, profile, flow);
  if ('refused' in result) return failSignIn(ctx, res, provider, result.refused, `identity ${profile.provider} refused`);
  const code = await createExchangeCode(ctx, result.user.id, provider.id, bindToBrowser(ctx, res, flow), 'pendingLink' in result ? result.pendingLink : undefined);
  redirectToApp(ctx, res, { code, returnTo: flow.returnTo });
}
