/**
 * Discord's `GET /api/users/@me`: new-style usernames (discriminator "0"), an avatar hash, and
 * `email` + `verified` only with the `email` scope.
 */
import { authorizationToken, sendJson } from '../http.js';
import type { ResourceContext } from '../spec.js';
import { digest, isVerified, usernameOf } from '../users.js';

export function discordProfile({ ex, grant }: ResourceContext): void {
  const found = grant(authorizationToken(ex.req, ['bearer']));
  if (!found?.authorization.scopes.includes('identify')) {
    return sendJson(ex, 401, { message: '401: Unauthorized', code: 0 }, 'unauthorized');
  }
  const { scopes, user } = found.authorization;
  sendJson(ex, 200, {
    id: user.id,
    username: usernameOf(user),
    discriminator: '0',
    global_name: user.name ?? null,
    avatar: user.picture ? digest(user.picture).slice(0, 32) : null,
    mfa_enabled: false,
    locale: 'en-US',
    flags: 0,
    public_flags: 0,
    ...(scopes.includes('email') ? { email: user.email ?? null, verified: isVerified(user) } : {}),
  });
}
