import type { AppContext } from '../../../context.js';
import type { User } from '../../../generated/prisma/client.js';
import { isUniqueViolation } from '../../../http/database-errors.js';
import { cleanDisplayName } from '../display-name.js';
import { proveMailbox } from '../mailbox-proof.js';
import type { ProviderProfile } from './provider-profile.js';

/**
 * Why an identity cannot sign in or be linked. OAuth callbacks redirect with it as `?error=`;
 * hosted exchanges answer 409 ACCOUNT_EXISTS.
 */
export type IdentityRefusal = 'account_exists' | 'email_required' | 'identity_in_use';

export type IdentityResult = { user: User } | { refused: IdentityRefusal };

/** Two requests for the same new identity at once: the loser looks again and finds the winner's rows. */
const ATTEMPTS = 3;

function identityData(profile: ProviderProfile) {
  return { type: profile.type, provider: profile.provider, providerAccountId: profile.providerAccountId, email: profile.email };
}

async function findIdentityOwner(ctx: AppContext, profile: ProviderProfile): Promise<User | undefined> {
  const account = await ctx.prisma.account.findUnique({
    where: { provider_providerAccountId: { provider: profile.provider, providerAccountId: profile.providerAccountId } },
    include: { user: true },
  });
  return account?.user;
}

async function retryOnRace<T>(attempt: () => Promise<T | undefined>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      const result = await attempt();
      if (result !== undefined) return result;
    } catch (error) {
      if (!isUniqueViolation(error) || tries >= ATTEMPTS) throw error;
    }
  }
}

/**
 * The account rules for OAuth providers and hosted services alike:
 * - a known identity signs its user in;
 * - a new identity whose provider reports a verified email equal to a user's links to that user
 *   (taking a provisional account over, see mailbox-proof.ts);
 * - an unverified email equal to a user's never links (account_exists);
 * - no email at all: email_required;
 * - otherwise a new user, with emailVerified as the provider reports it.
 */
export function signInWithIdentity(ctx: AppContext, profile: ProviderProfile): Promise<IdentityResult> {
  return retryOnRace<IdentityResult>(async () => {
    const known = await findIdentityOwner(ctx, profile);
    if (known) return { user: known };
    if (!profile.email) return { refused: 'email_required' };
    const owner = await ctx.prisma.user.findUnique({ where: { email: profile.email } });
    if (owner) {
      if (!profile.emailVerified) return { refused: 'account_exists' };
      const user = await proveMailbox(ctx, owner);
      await ctx.prisma.account.create({ data: { ...identityData(profile), userId: user.id } });
      return { user };
    }
    const user = await ctx.prisma.user.create({
      data: {
        email: profile.email,
        emailVerified: profile.emailVerified,
        name: cleanDisplayName(profile.name),
        image: profile.image,
        accounts: { create: identityData(profile) },
      },
    });
    return { user };
  });
}

/** Attaches the identity to a signed-in user (a flow started by /link); another user's identity is refused. */
export function linkIdentity(ctx: AppContext, profile: ProviderProfile, user: User): Promise<IdentityResult> {
  return retryOnRace<IdentityResult>(async () => {
    const known = await findIdentityOwner(ctx, profile);
    if (known) return known.id === user.id ? { user } : { refused: 'identity_in_use' };
    await ctx.prisma.account.create({ data: { ...identityData(profile), userId: user.id } });
    return { user };
  });
}
