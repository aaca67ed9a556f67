import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../../context.js';
import type { PrismaClient } from '../../../generated/prisma/client.js';
import { hashToken } from '../one-time-tokens.js';

/** A challenge serves the one ceremony it was made for: a registration never signs anyone in. */
export type ChallengeKind = 'registration' | 'sign-in' | 'second-factor';

/** Long enough to finish a browser prompt, short enough that an unused one is soon worthless. */
export const CHALLENGE_TTL_MS = 5 * 60 * 1000;

/** 256 random bits for the browser to sign; only its hash is stored. */
export async function issueChallenge(ctx: AppContext, kind: ChallengeKind, userId?: string): Promise<Uint8Array<ArrayBuffer>> {
  const challenge = new Uint8Array(randomBytes(32));
  await ctx.prisma.passkeyChallenge.create({
    data: {
      challengeHash: hashToken(Buffer.from(challenge).toString('base64url')),
      kind,
      userId: userId ?? null,
      expiresAt: new Date(Date.now() + CHALLENGE_TTL_MS),
    },
  });
  return challenge;
}

/** The challenge the browser signed, read from the clientDataJSON it sent. */
export function signedChallenge(clientDataJSON: string): string | undefined {
  try {
    const clientData = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')) as { challenge?: unknown };
    return typeof clientData.challenge === 'string' ? clientData.challenge : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Uses up the challenge a response signed, before the response is checked: it must be one this
 * server made for this kind of ceremony (and this user, when it was made for one), unused and
 * under 5 minutes old. The conditional update lets exactly one of two concurrent requests have it.
 */
export async function claimChallenge(
  ctx: AppContext,
  clientDataJSON: string,
  kind: ChallengeKind,
  userId?: string,
): Promise<string | undefined> {
  const challenge = signedChallenge(clientDataJSON);
  if (!challenge) return undefined;
  const now = new Date();
  const { count } = await ctx.prisma.passkeyChallenge.updateMany({
    where: { challengeHash: hashToken(challenge), kind, userId: userId ?? null, usedAt: null, expiresAt: { gt: now } },
    data: { usedAt: now },
  });
  return count === 1 ? challenge : undefined;
}

/** Challenges past their 5 minutes, used or not. */
export function deleteExpiredPasskeyChallenges(db: PrismaClient, now: Date): Promise<{ count: number }> {
  return db.passkeyChallenge.deleteMany({ where: { expiresAt: { lt: now } } });
}
