import type { AppContext } from '../../context.js';
import type { Session, User } from '../../generated/prisma/client.js';
import { signAccessToken } from './access-tokens.js';
import { deferredSteps, loginChecks } from './account-hooks.js';
import { toPublicUser, type PublicUser } from './public-user.js';
import { startSession, type IssuedRefreshToken, type SignIn } from './sessions.js';

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

/** A further step a user must pass before a token is issued (for example a second factor). */
export interface LoginChallenge {
  mfaRequired: true;
  mfaToken: string;
  methods: string[];
}

export type LoginResult = TokenResponse | LoginChallenge;

/** Work that waits until every challenge is passed; `kind` names one of the deferred steps. */
export interface PendingStep {
  kind: string;
  data: string;
}

/** The token response of a session: a new access token and the session's current refresh token. */
export function tokenResponse(ctx: AppContext, session: Session, user: User, refresh: IssuedRefreshToken): TokenResponse {
  const access = signAccessToken(ctx.config, session);
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
  await step.run(ctx, user, pending.data);
  return issueTokenResponse(ctx, await ctx.prisma.user.findUniqueOrThrow({ where: { id: user.id } }), signIn);
}

/**
 * Every first factor (password, magic link, OAuth exchange, hosted exchange) ends here, so no
 * sign-in method can skip a challenge such as two-factor authentication. `signIn` says how and
 * from where (the session records it); `pending` is work that must wait until every challenge is
 * passed (the new password of a reset).
 */
export async function completeLogin(ctx: AppContext, user: User, signIn: SignIn, pending?: PendingStep): Promise<LoginResult> {
  for (const check of loginChecks) {
    const challenge = await check(ctx, user, signIn, pending);
    if (challenge) return challenge;
  }
  return finishLogin(ctx, user, signIn, pending);
}
