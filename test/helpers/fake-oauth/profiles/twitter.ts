/**
 * X's `GET /2/users/me`: `{ data: { id, name, username, … } }`. `profile_image_url` only when
 * `user.fields` asks for it; `confirmed_email` only when `user.fields` asks for it, the token has
 * `users.email`, and the user confirmed the address.
 */
import { authorizationToken, sendJson } from '../http.js';
import type { ResourceContext } from '../spec.js';
import { isVerified, usernameOf } from '../users.js';

function problem(status: number, title: string): Record<string, unknown> {
  return { title, type: 'about:blank', status, detail: title };
}

export function twitterProfile({ ex, grant }: ResourceContext): void {
  const found = grant(authorizationToken(ex.req, ['bearer']));
  if (!found) return sendJson(ex, 401, problem(401, 'Unauthorized'), 'unauthorized');
  const { scopes, user } = found.authorization;
  if (!scopes.includes('users.read') || !scopes.includes('tweet.read')) {
    return sendJson(ex, 403, problem(403, 'Forbidden'), 'missing_scope');
  }
  const fields = (ex.query['user.fields'] ?? '').split(',');
  const withEmail = fields.includes('confirmed_email') && scopes.includes('users.email') && isVerified(user);
  sendJson(ex, 200, {
    data: {
      id: user.id,
      name: user.name ?? usernameOf(user),
      username: usernameOf(user),
      ...(fields.includes('profile_image_url') && user.picture ? { profile_image_url: user.picture } : {}),
      ...(withEmail ? { confirmed_email: user.email } : {}),
    },
  });
}
