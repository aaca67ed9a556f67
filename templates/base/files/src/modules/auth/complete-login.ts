import type { AppContext } from '../../context.js';
import type { User } from '../../generated/prisma/client.js';
import { signAccessToken } from './access-tokens.js';
import { deferredSteps, loginChecks } from './account-hooks.js';
import { toPublicUser, type PublicUser } from './public-user.js';

export interface TokenResponse {
  token: string;
  tokenType: 'Bearer';
  expiresIn: number;
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

/** Issues an access token and records it, so it can be revoked later. */
export async function issueTokenResponse(ctx: AppContext, user: User): Promise<TokenResponse> {
  const signed = signAccessToken(ctx.config, user.id);
  const now = new Date();
  await ctx.prisma.$transaction([
    ctx.prisma.accessToken.deleteMany({ where: { userId: user.id, expiresAt: { lt: now } } }),
    ctx.prisma.accessToken.create({ data: { id: signed.tokenId, userId: user.id, expiresAt: signed.expiresAt } }),
  ]);
  return { token: signed.token, tokenType: 'Bearer', expiresIn: signed.expiresIn, user: toPublicUser(user) };
}

/**
 * Runs the deferred work of a sign-in, once every challenge is passed, then issues the token.
 * A challenge module calls this when its challenge succeeds.
 */
export async function finishLogin(ctx: AppContext, user: User, pending?: PendingStep): Promise<TokenResponse> {
  if (!pending) return issueTokenResponse(ctx, user);
  const step = deferredSteps.find((candidate) => candidate.kind === pending.kind);
  if (!step) throw new Error(`No deferred step of kind '${pending.kind}'`);
  await step.run(ctx, user, pending.data);
  return issueTokenResponse(ctx, await ctx.prisma.user.findUniqueOrThrow({ where: { id: user.id } }));
}

/**
 * Every first factor (password, magic link, OAuth exchange, hosted exchange) ends here, so no
 * sign-in method can skip a challenge such as two-factor authentication. `pending` is work that
 * must wait until every challenge is passed (the new password of a reset).
 */
export async function completeLogin(ctx: AppContext, user: User, pending?: PendingStep): Promise<LoginResult> {
  for (const check of loginChecks) {
    const challenge = await check(ctx, user, pending);
    if (challenge) return challenge;
  }
  return finishLogin(ctx, user, pending);
}
