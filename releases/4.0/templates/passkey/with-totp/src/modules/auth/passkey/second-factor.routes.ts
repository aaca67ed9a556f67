import { Router } from 'express';
import type { AppContext } from '../../../context.js';
import { forbidden, invalidToken } from '../../../http/app-error.js';
import { validate } from '../../../http/validate.js';
import { finishLogin } from '../complete-login.js';
import { sendLoginResult } from '../refresh-transport.js';
import { clientOf } from '../sessions.js';
import { challengeOwner, claimAttempt, finishChallenge, pendingStepOf } from '../two-factor/mfa-challenges.js';
import { claimChallenge } from './passkey-challenges.js';
import { secondFactorBody, secondFactorOptionsBody } from './passkey.schemas.js';
import { acceptAssertion, invalidCredentials, signInOptions } from './passkey.service.js';
import type { RelyingParty } from './relying-party.js';

const expiredMfaToken = () => invalidToken('The mfaToken is invalid, expired, already used or out of attempts. Sign in again.');

/**
 * A passkey as the second step of a sign-in that asked for one (the mfa answer lists "passkey"):
 * options for the user's own passkeys, then the assertion. Asking for options costs nothing; each
 * assertion is one of the mfaToken's attempts, and the session keeps the first factor's method.
 */
export function createPasskeySecondFactorRoutes(ctx: AppContext, rp: RelyingParty): Router {
  const router = Router();

  router.post('/api/auth/2fa/passkey/options', ctx.rateLimit('2fa-passkey-options'), async (req, res) => {
    const ownerId = await challengeOwner(ctx, validate(secondFactorOptionsBody, req.body).mfaToken);
    const user = ownerId ? await ctx.prisma.user.findUnique({ where: { id: ownerId } }) : null;
    if (!user) throw expiredMfaToken();
    if ((await ctx.prisma.passkey.count({ where: { userId: user.id } })) === 0)
      throw forbidden('This account has no passkey. Use a code instead.');
    res.json(await signInOptions(ctx, rp, 'second-factor', user));
  });

  router.post('/api/auth/2fa/passkey/verify', ctx.rateLimit('2fa-passkey-verify'), async (req, res) => {
    const { mfaToken, response } = validate(secondFactorBody, req.body);
    const challenge = await claimAttempt(ctx, mfaToken);
    if (!challenge) throw expiredMfaToken();
    const user = await ctx.prisma.user.findUnique({ where: { id: challenge.userId } });
    if (!user?.twoFactorEnabled) throw invalidToken('Two-factor authentication is no longer on. Sign in again.');
    const expectedChallenge = await claimChallenge(ctx, response.response.clientDataJSON, 'second-factor', user.id);
    if (!expectedChallenge) throw invalidCredentials();
    // Only the user's own passkeys count: another account's credential is no second factor here.
    const passkey = await ctx.prisma.passkey.findFirst({ where: { credentialId: response.id, userId: user.id } });
    if (!passkey) throw invalidCredentials();
    await acceptAssertion(ctx, rp, passkey, response, expectedChallenge);
    if (!(await finishChallenge(ctx, challenge))) throw invalidToken('The mfaToken was already used. Sign in again.');
    sendLoginResult(
      req,
      res,
      ctx.config,
      await finishLogin(ctx, user, { ...clientOf(req), method: challenge.method }, pendingStepOf(challenge)),
    );
  });

  return router;
}
