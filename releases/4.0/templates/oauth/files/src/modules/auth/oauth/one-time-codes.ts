import type { AppContext } from '../../../context.js';
import { isUniqueViolation } from '../../../http/database-errors.js';
import type { ProviderProfile } from '../identities/provider-profile.js';
import { consumeOneTimeToken, createOneTimeToken, hashToken, randomToken } from '../one-time-tokens.js';
import { seal, unseal } from './flow-cookie.js';

const EXCHANGE = { purpose: 'oauth_exchange', ttlSeconds: 60 };
const LINK = { purpose: 'oauth_link', ttlSeconds: 5 * 60 };
const LINK_FLOW = { purpose: 'oauth_link_flow', ttlSeconds: 10 * 60 };
const STATE = { purpose: 'oauth_state', ttlSeconds: 10 * 60 };

/**
 * What ties a link ticket or an exchange code to one browser: a random secret the server set in
 * that browser's cookie, or the S256 challenge of a verifier that only the front end holds. Only
 * the hash of the token together with its binding is stored, so the token alone redeems nothing.
 */
export type Binding = { cookie: string } | { codeChallenge: string };

function boundKey(token: string, binding: Binding, scope = ''): string {
  const tie = 'cookie' in binding ? `cookie:${binding.cookie}` : `S256:${binding.codeChallenge}`;
  return `${scope}${token}|${tie}`;
}

async function createBoundToken(ctx: AppContext, kind: { purpose: string; ttlSeconds: number }, userId: string, key: (token: string) => string, token = randomToken()): Promise<string> {
  await ctx.prisma.oneTimeToken.create({
    data: { purpose: kind.purpose, tokenHash: hashToken(key(token)), userId, expiresAt: new Date(Date.now() + kind.ttlSeconds * 1000) },
  });
  return token;
}

/** The identity a link bound to a code challenge attaches at the exchange, not at the callback. */
export type PendingLink = Pick<ProviderProfile, 'provider' | 'providerAccountId' | 'type' | 'email'>;

const PENDING_LINK = 'pending link';

/**
 * The code the callback hands to the front end: 256 bits, stored hashed with its binding, single
 * use, 60 seconds. A link that waits for the exchange carries its identity in the code, sealed so
 * that only this server can read it.
 */
export async function createExchangeCode(ctx: AppContext, userId: string, provider: string, binding: Binding, pendingLink?: PendingLink): Promise<string> {
  const code = pendingLink ? await seal(ctx.config, PENDING_LINK, { ...pendingLink, jti: randomToken() }, EXCHANGE.ttlSeconds) : randomToken();
  // The purpose names the provider: the session the exchange starts records it as its method.
  const kind = { ...EXCHANGE, purpose: `${EXCHANGE.purpose}:${provider}` };
  return createBoundToken(ctx, kind, userId, (token) => boundKey(token, binding), code);
}

export interface RedeemedCode {
  userId: string;
  /** The provider the user signed in with. */
  provider: string;
  pendingLink?: PendingLink;
}

/** The user an exchange code was issued for (and the identity to link, if any), once, and only with its binding. */
export async function redeemExchangeCode(ctx: AppContext, code: string, binding: Binding): Promise<RedeemedCode | undefined> {
  const record = await consumeOneTimeToken(ctx, { startsWith: `${EXCHANGE.purpose}:` }, boundKey(code, binding));
  if (!record?.userId) return undefined;
  const redeemed = { userId: record.userId, provider: record.purpose.slice(EXCHANGE.purpose.length + 1) };
  // A sign-in's code is base64url; only a sealed link (a JWE) has dots.
  if (!code.includes('.')) return redeemed;
  const sealed = await unseal(ctx.config, PENDING_LINK, code);
  if (typeof sealed?.provider !== 'string' || typeof sealed.providerAccountId !== 'string') return undefined;
  const { provider, providerAccountId, type, email } = sealed as unknown as PendingLink;
  return { ...redeemed, pendingLink: { provider, providerAccountId, type, email: email ?? null } };
}

/**
 * A ticket in the link URL that says which signed-in user started the link (the browser carries no
 * Bearer token). It works once, only at this provider's start, and only with its binding.
 */
export function createLinkTicket(ctx: AppContext, userId: string, provider: string, binding: Binding): Promise<string> {
  return createBoundToken(ctx, LINK, userId, (ticket) => boundKey(ticket, binding, `${provider}:`));
}

export async function redeemLinkTicket(ctx: AppContext, provider: string, ticket: string, binding: Binding): Promise<string | undefined> {
  return (await consumeOneTimeToken(ctx, LINK.purpose, boundKey(ticket, binding, `${provider}:`)))?.userId ?? undefined;
}

/**
 * A link flow in progress, as a one-time token of the user's: revoking all of the user's tokens
 * (a password change, logout everywhere…) voids it, so a link started before that links nothing.
 */
export function startLinkFlow(ctx: AppContext, userId: string): Promise<string> {
  return createOneTimeToken(ctx, { ...LINK_FLOW, userId });
}

/** Whether the link flow is still the user's to finish (once). */
export async function finishLinkFlow(ctx: AppContext, token: string, userId: string): Promise<boolean> {
  return (await consumeOneTimeToken(ctx, LINK_FLOW.purpose, token, { userId })) !== undefined;
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
