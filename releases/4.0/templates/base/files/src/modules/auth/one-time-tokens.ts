import { createHash, randomBytes } from 'node:crypto';
import type { AppContext } from '../../context.js';
import type { OneTimeToken } from '../../generated/prisma/client.js';

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** 256 random bits, URL-safe. */
export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

export interface NewOneTimeToken {
  purpose: string;
  ttlSeconds: number;
  userId?: string;
  email?: string;
}

/** Creates a single-use token and returns it; only its hash is stored. */
export async function createOneTimeToken(ctx: AppContext, input: NewOneTimeToken): Promise<string> {
  const token = randomToken();
  await ctx.prisma.oneTimeToken.create({
    data: {
      purpose: input.purpose,
      tokenHash: hashToken(token),
      userId: input.userId,
      email: input.email,
      expiresAt: new Date(Date.now() + input.ttlSeconds * 1000),
    },
  });
  return token;
}

/**
 * Marks the token used and returns it, or undefined when it is unknown, expired, already used,
 * for another purpose or (with `owner`) another user's. The conditional update makes it
 * single-use even under concurrent requests. `purpose` may be a prefix (`{ startsWith }`) for
 * tokens whose purpose also names something (the provider of an OAuth exchange code).
 */
export async function consumeOneTimeToken(
  ctx: AppContext,
  purpose: string | { startsWith: string },
  token: string,
  owner: { userId?: string } = {},
): Promise<OneTimeToken | undefined> {
  const tokenHash = hashToken(token);
  const now = new Date();
  const { count } = await ctx.prisma.oneTimeToken.updateMany({
    where: { tokenHash, purpose, usedAt: null, expiresAt: { gt: now }, ...owner },
    data: { usedAt: now },
  });
  if (count !== 1) return undefined;
  return (await ctx.prisma.oneTimeToken.findUnique({ where: { tokenHash } })) ?? undefined;
}
