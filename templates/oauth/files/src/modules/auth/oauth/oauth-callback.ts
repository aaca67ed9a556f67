import type { Request, Response } from 'express';
import type { AppContext } from '../../../context.js';
import { linkIdentity, signInWithIdentity, type IdentityResult } from '../identities/identity-sign-in.js';
import type { ProviderProfile } from '../identities/provider-profile.js';
import { clearFlowCookie, readFlowCookie, type OAuthFlow } from './flow-cookie.js';
import type { CallbackParams, ClientCredentials, OAuthProvider } from './oauth-provider.js';
import { oauth2Strategy } from './oauth2-strategy.js';
import { oidcStrategy } from './oidc-strategy.js';
import { createExchangeCode, markStateUsed } from './one-time-codes.js';
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

async function accountFor(ctx: AppContext, profile: ProviderProfile, flow: OAuthFlow): Promise<IdentityResult> {
  if (!flow.linkUserId) return signInWithIdentity(ctx, profile);
  const user = await ctx.prisma.user.findUnique({ where: { id: flow.linkUserId } });
  return user ? linkIdentity(ctx, profile, user) : { refused: 'identity_in_use' };
}

/**
 * The callback of CONTRACT B.6: the state must be the cookie's and for this provider, both used
 * once; then the code is redeemed, the profile read, the account rules applied, and the browser
 * sent to the front end with a one-time code.
 */
export async function handleCallback(ctx: AppContext, provider: OAuthProvider, req: Request, res: Response): Promise<void> {
  const params = callbackParams(req.query);
  const flow = await readFlowCookie(req, ctx.config);
  clearFlowCookie(res, ctx.config);
  if (!flow || flow.provider !== provider.id || !params.state || params.state !== flow.state) {
    return failSignIn(ctx, res, provider, 'invalid_state', flow ? 'state or provider does not match the cookie' : 'no flow cookie');
  }
  if (!(await markStateUsed(ctx, flow.state))) return failSignIn(ctx, res, provider, 'invalid_state', 'state used before');
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
  redirectToApp(ctx, res, { code: await createExchangeCode(ctx, result.user.id), returnTo: flow.returnTo });
}
