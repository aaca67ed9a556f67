import { createHash } from 'node:crypto';
import type { Adapter, AdapterUser } from '@auth/express/adapters';
import type { AuthjsUser, PrismaClient } from '../../../generated/prisma/client.js';

/** Session tokens are stored as SHA-256, like every other token of the app: a copy of the table signs nobody in. */
export const hashSessionToken = (sessionToken: string) => createHash('sha256').update(sessionToken).digest('hex');

function toAdapterUser(user: AuthjsUser): AdapterUser {
  return { id: user.id, email: user.email ?? '', emailVerified: user.emailVerified, name: user.name, image: user.image };
}

/**
 * Auth.js's database adapter over its own tables (AuthjsUser, AuthjsAccount, AuthjsSession,
 * AuthjsVerificationToken), so it never writes the app's User: the exchange maps an Auth.js user
 * to a User under the app's rules. Auth.js's `emailVerified` (a date) stays as it is here.
 */
export function authjsAdapter(prisma: PrismaClient): Adapter {
  return {
    async createUser({ email, emailVerified, name, image }) {
      return toAdapterUser(await prisma.authjsUser.create({ data: { email: email || null, emailVerified, name, image } }));
    },
    async getUser(id) {
      const user = await prisma.authjsUser.findUnique({ where: { id } });
      return user ? toAdapterUser(user) : null;
    },
    async getUserByEmail(email) {
      const user = await prisma.authjsUser.findUnique({ where: { email } });
      return user ? toAdapterUser(user) : null;
    },
    async getUserByAccount({ provider, providerAccountId }) {
      const account = await prisma.authjsAccount.findUnique({ where: { provider_providerAccountId: { provider, providerAccountId } }, include: { user: true } });
      return account ? toAdapterUser(account.user) : null;
    },
    async updateUser({ id, email, emailVerified, name, image }) {
      return toAdapterUser(await prisma.authjsUser.update({ where: { id }, data: { email, emailVerified, name, image } }));
    },
    async deleteUser(id) {
      await prisma.authjsUser.deleteMany({ where: { id } });
    },
    // The provider's own tokens (access, refresh, id_token) are not kept.
    async linkAccount({ userId, type, provider, providerAccountId }) {
      await prisma.authjsAccount.create({ data: { userId, type, provider, providerAccountId } });
    },
    async unlinkAccount({ provider, providerAccountId }) {
      await prisma.authjsAccount.deleteMany({ where: { provider, providerAccountId } });
    },
    async createSession({ sessionToken, userId, expires }) {
      await prisma.authjsSession.create({ data: { sessionTokenHash: hashSessionToken(sessionToken), userId, expires } });
      return { sessionToken, userId, expires };
    },
    async getSessionAndUser(sessionToken) {
      const session = await prisma.authjsSession.findUnique({ where: { sessionTokenHash: hashSessionToken(sessionToken) }, include: { user: true } });
      return session ? { session: { sessionToken, userId: session.userId, expires: session.expires }, user: toAdapterUser(session.user) } : null;
    },
    async updateSession({ sessionToken, expires }) {
      const session = await prisma.authjsSession.update({ where: { sessionTokenHash: hashSessionToken(sessionToken) }, data: { expires } });
      return { sessionToken, userId: session.userId, expires: session.expires };
    },
    async deleteSession(sessionToken) {
      await prisma.authjsSession.deleteMany({ where: { sessionTokenHash: hashSessionToken(sessionToken) } });
    },
    async createVerificationToken(token) {
      await prisma.authjsVerificationToken.create({ data: token });
      return token;
    },
    /** Single use, also when the link is opened twice at once: only the request that deletes the row gets it. */
    async useVerificationToken({ identifier, token }) {
      const where = { identifier_token: { identifier, token } };
      const found = await prisma.authjsVerificationToken.findUnique({ where });
      if (!found) return null;
      const { count } = await prisma.authjsVerificationToken.deleteMany({ where: { identifier, token } });
      return count === 1 ? found : null;
    },
  };
}
