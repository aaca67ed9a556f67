import type { AppContext } from '../../context.js';
import type { Session, User } from '../../generated/prisma/client.js';
import { signAccessToken } from './access-tokens.js';
import type { LoginChallenge, PendingStep, SignIn } from './account-events.js';
import { loginChecks, secondFactorChecks } from './account-hooks.js';
import { deferredSteps } from './deferred-steps.js';
import { toPublicUser, type PublicUser } from './public-user.js';
import { checkSessionAllowed, startSession, type IssuedRefreshToken } from './sessions.js';

export interface TokenResponse {
  token: string;
  tokenType: 'Bearer';
  /** Seconds the access token lives (JWT_EXPIRES_IN). */
  expiresIn: number;
  /** Absent from the body when the refresh token travels in a cookie (see refresh-transport.ts). */
  refreshToken?: string;
  refreshExpiresIn: number;
  user: PublicUser;
}

export type LoginResult = TokenResponse | LoginChallenge;

/** The token response of a session: a new access token and the session's current refresh token. */
export async function tokenResponse(ctx: AppContext, session: Session, user: User, refresh: IssuedRefreshToken): Promise<TokenResponse> {
  const access = await signAccessToken(ctx, session);
  return {
    token: access.token,
    tokenType: 'Bearer',
    expiresIn: access.expiresIn,
    refreshToken: refresh.refreshToken,
    refreshExpiresIn: refresh.refreshExpiresIn,
    user: toPublicUser(user),
  };
}

/** Starts a session for the user and answers with its first tokens. */
export async function issueTokenResponse(ctx: AppContext, user: User, signIn: SignIn): Promise<TokenResponse> {
  const { session, ...refresh } = await startSession(ctx, user, signIn);
  return tokenResponse(ctx, session, user, refresh);
}

/**
 * Runs the deferred work of a sign-in, once every challenge is passed, then starts the session.
 * A challenge module calls this when its challenge succeeds.
 */
export async function finishLogin(ctx: AppContext, user: User, signIn: SignIn, pending?: PendingStep): Promise<TokenResponse> {
  if (!pending) return issueTokenResponse(ctx, user, signIn);
  const step = deferredSteps.find((candidate) => candidate.kind === pending.kind);
  if (!step) throw new Error(`No deferred step of kind '${pending.kind}'`);
  // The step's own revocation (a reset's) raised the security version: the session starts from
  // the user as the step left it, and only if nothing else revoked it since.
  return issueTokenResponse(ctx, await step.run(ctx, user, pending.data), signIn);
}

/**
 * Every first factor (password, magic link, OAuth exchange, hosted exchange) ends here, so no
 * sign-in method can skip a challenge such as two-factor authentication. `signIn` says how and
 * from where (the session records it); `pending` is work that must wait until every challenge is
 * passed (the new password of a reset).
 */
export async function completeLogin(ctx: AppContext, user: User, signIn: SignIn, pending?: PendingStep): Promise<LoginResult> {
  // A banned user is refused before any second factor is asked (startSession checks again).
  await checkSessionAllowed(ctx.prisma, user.id);
  for (const check of loginChecks) {
    const challenge = await check(ctx, user, signIn, pending);
    if (challenge) return withOtherSecondFactors(ctx, user, challenge);
  }
  return finishLogin(ctx, user, signIn, pending);
}

/** The challenge's own methods, then the second factors of other modules the user has (a passkey). */
async function withOtherSecondFactors(ctx: AppContext, user: User, challenge: LoginChallenge): Promise<LoginChallenge> {
  const others = await Promise.all(secondFactorChecks.map((check) => check(ctx.prisma, user.id)));
  return { ...challenge, methods: [...challenge.methods, ...others.flat()] };
}
