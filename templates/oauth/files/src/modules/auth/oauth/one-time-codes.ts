import type { AppContext } from '../../../context.js';
import { isUniqueViolation } from '../../../http/database-errors.js';
import { consumeOneTimeToken, createOneTimeToken, hashToken } from '../one-time-tokens.js';

const EXCHANGE = { purpose: 'oauth_exchange', ttlSeconds: 60 };
const LINK = { purpose: 'oauth_link', ttlSeconds: 5 * 60 };
const STATE = { purpose: 'oauth_state', ttlSeconds: 10 * 60 };

/** The code the callback hands to the front end: 256 bits, stored hashed, single use, 60 seconds. */
export function createExchangeCode(ctx: AppContext, userId: string): Promise<string> {
  return createOneTimeToken(ctx, { ...EXCHANGE, userId });
}

/** The user an exchange code was issued for, once. */
export async function redeemExchangeCode(ctx: AppContext, code: string): Promise<string | undefined> {
  return (await consumeOneTimeToken(ctx, EXCHANGE.purpose, code))?.userId ?? undefined;
}

/** A ticket in the link URL that says which signed-in user started the link (the browser carries no Bearer token). */
export function createLinkTicket(ctx: AppContext, userId: string): Promise<string> {
  return createOneTimeToken(ctx, { ...LINK, userId });
}

export async function redeemLinkTicket(ctx: AppContext, ticket: string): Promise<string | undefined> {
  return (await consumeOneTimeToken(ctx, LINK.purpose, ticket))?.userId ?? undefined;
}

/**
 * Records that a flow's state reached its callback. The cookie is cleared there, but a copy of it
 * could be replayed; the state's unique row makes the second callback fail.
 */
export async function markStateUsed(ctx: AppContext, state: string): Promise<boolean> {
  const now = Date.now();
  try {
    await ctx.prisma.oneTimeToken.create({
      data: { purpose: STATE.purpose, tokenHash: hashToken(`state:${state}`), usedAt: new Date(now), expiresAt: new Date(now + STATE.ttlSeconds * 1000) },
    });
    return true;
  } catch (error) {
    if (isUniqueViolation(error)) return false;
    throw error;
  }
}
