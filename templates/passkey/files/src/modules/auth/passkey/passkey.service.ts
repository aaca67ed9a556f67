import { randomBytes } from 'node:crypto';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { AppContext } from '../../../context.js';
import type { Passkey, User } from '../../../generated/prisma/client.js';
import { AppError, invalidToken, notFound } from '../../../http/app-error.js';
import { isUniqueViolation } from '../../../http/database-errors.js';
import { recordEvent, userRef } from '../events.js';
import { removeSignInMethod } from '../sign-in-methods.js';
import { claimChallenge, issueChallenge, CHALLENGE_TTL_MS } from './passkey-challenges.js';
import type { RelyingParty } from './relying-party.js';

/**
 * @simplewebauthn/server and its ASN.1 and CBOR parsers load with the first passkey request, not at
 * every start: loading them took longer than the rest of the app's start-up together.
 */
const webauthn = () => import('@simplewebauthn/server');

/** ES256, EdDSA and RS256: what passkey providers use. */
const ALGORITHMS = [-7, -8, -257];

export interface PasskeyView {
  id: string;
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  deviceType: string;
  backedUp: boolean;
}

export const toPasskeyView = ({ id, name, createdAt, lastUsedAt, deviceType, backedUp }: Passkey): PasskeyView => ({
  id,
  name,
  createdAt,
  lastUsedAt,
  deviceType,
  backedUp,
});

/** One answer for every failed passkey sign-in, so a failure says nothing about which check failed. */
export const invalidCredentials = () => new AppError(401, 'INVALID_CREDENTIALS', 'The passkey could not be verified. Try again.');
const emailNotVerified = () => new AppError(403, 'EMAIL_NOT_VERIFIED', 'Verify your email address before you add a passkey.');

/** The user's opaque WebAuthn handle: 32 random bytes, made on their first passkey, the same for all of them. */
async function userHandle(ctx: AppContext, userId: string): Promise<Uint8Array<ArrayBuffer>> {
  const existing = await ctx.prisma.passkeyHandle.findUnique({ where: { userId } });
  if (existing) return new Uint8Array(Buffer.from(existing.handle, 'base64url'));
  const handle = randomBytes(32).toString('base64url');
  // Two first registrations at once: the second create fails on the primary key, so read the winner's.
  const row = await ctx.prisma.passkeyHandle
    .create({ data: { userId, handle } })
    .catch(() => ctx.prisma.passkeyHandle.findUniqueOrThrow({ where: { userId } }));
  return new Uint8Array(Buffer.from(row.handle, 'base64url'));
}

/** Creation options for a new passkey of the signed-in user, whose email must be verified. */
export async function registrationOptions(ctx: AppContext, rp: RelyingParty, user: User): Promise<PublicKeyCredentialCreationOptionsJSON> {
  if (!user.emailVerified) throw emailNotVerified();
  const existing = await ctx.prisma.passkey.findMany({ where: { userId: user.id }, select: { credentialId: true, transports: true } });
  const { generateRegistrationOptions } = await webauthn();
  return generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userID: await userHandle(ctx, user.id),
    userName: user.email,
    userDisplayName: user.name ?? user.email,
    challenge: await issueChallenge(ctx, 'registration', user.id),
    timeout: CHALLENGE_TTL_MS,
    attestationType: 'none',
    excludeCredentials: existing.map(({ credentialId, transports }) => ({
      id: credentialId,
      transports: transports ? transports.split(',') : undefined,
    })),
    authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'required' },
    supportedAlgorithmIDs: ALGORITHMS,
  });
}

/** Stores the passkey the browser made, once its attestation checks out against a challenge made for this user. */
export async function register(
  ctx: AppContext,
  rp: RelyingParty,
  user: User,
  response: RegistrationResponseJSON,
  name?: string,
): Promise<PasskeyView> {
  if (!user.emailVerified) throw emailNotVerified();
  const expectedChallenge = await claimChallenge(ctx, response.response.clientDataJSON, 'registration', user.id);
  if (!expectedChallenge) throw invalidToken('The registration challenge is unknown, expired or already used. Ask for new options.');
  const { verifyRegistrationResponse } = await webauthn();
  const verification = await verifyRegistrationResponse({
    response,
    expectedChallenge,
    expectedOrigin: rp.origins,
    expectedRPID: rp.id,
    requireUserVerification: true,
    supportedAlgorithmIDs: ALGORITHMS,
  }).catch((error: Error) => {
    ctx.logger.info({ reason: error.message }, 'passkey registration refused');
    return undefined;
  });
  if (!verification?.verified) throw new AppError(400, 'VALIDATION_ERROR', 'The passkey could not be verified.');
  const { credential, credentialDeviceType, credentialBackedUp } = verification.registrationInfo;
  try {
    const passkey = await ctx.prisma.$transaction(async (tx) => {
      const added = await tx.passkey.create({
        data: {
          userId: user.id,
          credentialId: credential.id,
          publicKey: Buffer.from(credential.publicKey).toString('base64url'),
          counter: BigInt(credential.counter),
          transports: (response.response.transports ?? []).join(','),
          deviceType: credentialDeviceType,
          backedUp: credentialBackedUp,
          name: name ?? `Passkey added ${new Date().toISOString().slice(0, 10)}`,
        },
      });
      await recordEvent(ctx, tx, { action: 'passkey.added', target: userRef(user.id), metadata: { passkeyId: added.id, name: added.name } });
      return added;
    });
    return toPasskeyView(passkey);
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new AppError(400, 'VALIDATION_ERROR', 'This passkey is already registered.');
    }
    throw error;
  }
}

/** Request options for a discoverable sign-in: the browser offers whichever passkey of this site the user picks. */
export async function signInOptions(
  ctx: AppContext,
  rp: RelyingParty,
  kind: 'sign-in' | 'second-factor' = 'sign-in',
  user?: User,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const allow = user
    ? await ctx.prisma.passkey.findMany({ where: { userId: user.id }, select: { credentialId: true, transports: true } })
    : [];
  const { generateAuthenticationOptions } = await webauthn();
  return generateAuthenticationOptions({
    rpID: rp.id,
    challenge: await issueChallenge(ctx, kind, user?.id),
    timeout: CHALLENGE_TTL_MS,
    userVerification: 'required',
    allowCredentials: allow.map(({ credentialId, transports }) => ({
      id: credentialId,
      transports: transports ? transports.split(',') : undefined,
    })),
  });
}

/**
 * Checks an assertion of `passkey` against the expected challenge, the configured origins and RP
 * id, user verification and the signature counter, then stores the new counter. The counter is
 * moved with a conditional update, so two requests that present one assertion cannot both pass.
 */
export async function acceptAssertion(
  ctx: AppContext,
  rp: RelyingParty,
  passkey: Passkey,
  response: AuthenticationResponseJSON,
  expectedChallenge: string,
): Promise<void> {
  const { verifyAuthenticationResponse } = await webauthn();
  const verification = await verifyAuthenticationResponse({
    response,
    expectedChallenge,
    expectedOrigin: rp.origins,
    expectedRPID: rp.id,
    requireUserVerification: true,
    credential: {
      id: passkey.credentialId,
      publicKey: new Uint8Array(Buffer.from(passkey.publicKey, 'base64url')),
      counter: Number(passkey.counter),
      transports: passkey.transports ? passkey.transports.split(',') : undefined,
    },
  }).catch((error: Error) => {
    ctx.logger.info({ reason: error.message }, 'passkey assertion refused');
    return undefined;
  });
  if (!verification?.verified) throw invalidCredentials();
  const { newCounter, credentialBackedUp } = verification.authenticationInfo;
  const { count } = await ctx.prisma.passkey.updateMany({
    where: { id: passkey.id, counter: passkey.counter },
    data: { counter: BigInt(newCounter), backedUp: credentialBackedUp, lastUsedAt: new Date() },
  });
  if (count !== 1) throw invalidCredentials();
}

/**
 * A discoverable sign-in: the challenge must be a sign-in one this server made, the credential a
 * stored passkey (and the user handle, when sent, its owner's). A passkey with user verification
 * is both factors at once, so the caller completes the sign-in with no further challenge.
 */
export async function signIn(ctx: AppContext, rp: RelyingParty, response: AuthenticationResponseJSON): Promise<User> {
  const expectedChallenge = await claimChallenge(ctx, response.response.clientDataJSON, 'sign-in');
  if (!expectedChallenge) throw invalidCredentials();
  const passkey = await ctx.prisma.passkey.findUnique({
    where: { credentialId: response.id },
    include: { user: { include: { passkeyHandle: true } } },
  });
  if (!passkey) throw invalidCredentials();
  const handle = response.response.userHandle;
  if (handle !== undefined && handle !== passkey.user.passkeyHandle?.handle) throw invalidCredentials();
  await acceptAssertion(ctx, rp, passkey, response, expectedChallenge);
  return passkey.user;
}

export async function list(ctx: AppContext, userId: string): Promise<PasskeyView[]> {
  const passkeys = await ctx.prisma.passkey.findMany({ where: { userId }, orderBy: { createdAt: 'asc' } });
  return passkeys.map(toPasskeyView);
}

export async function rename(ctx: AppContext, userId: string, id: string, name: string): Promise<PasskeyView> {
  const { count } = await ctx.prisma.passkey.updateMany({ where: { id, userId }, data: { name } });
  if (count !== 1) throw notFound('Passkey not found.');
  return toPasskeyView(await ctx.prisma.passkey.findUniqueOrThrow({ where: { id } }));
}

/** Removes a passkey, never the user's last way to sign in (sign-in-methods.ts). */
export async function remove(ctx: AppContext, userId: string, id: string): Promise<void> {
  await removeSignInMethod(ctx, userId, async (db) => {
    const { count } = await db.passkey.deleteMany({ where: { id, userId } });
    if (count === 0) throw notFound('Passkey not found.');
    await recordEvent(ctx, db, { action: 'passkey.removed', target: userRef(userId), metadata: { passkeyId: id } });
  });
}
