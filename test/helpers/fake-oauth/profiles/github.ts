/**
 * GitHub's REST API: `GET /user` (id as a number, email = the public email or null) and
 * `GET /user/emails` (needs the `user:email` or `user` scope, else 404 as GitHub answers).
 * Like api.github.com, it refuses requests without a User-Agent and accepts `token` or `Bearer`.
 */
import { authorizationToken, sendJson, sendText } from '../http.js';
import type { ResourceContext } from '../spec.js';
import type { FakeUser } from '../types.js';
import { isVerified, usernameOf } from '../users.js';

const DOCS = 'https://docs.github.com/rest';
const NO_USER_AGENT =
  'Request forbidden by administrative rules. Please make sure your request has a User-Agent header ' +
  '(https://docs.github.com/en/rest/overview/resources-in-the-rest-api#user-agent-required). ' +
  'Check https://developer.github.com for other possible causes.\n';

function userBody(user: FakeUser): Record<string, unknown> {
  const login = usernameOf(user);
  return {
    login,
    id: Number(user.id),
    node_id: Buffer.from(`04:User${user.id}`).toString('base64'),
    avatar_url: user.picture ?? `https://avatars.githubusercontent.com/u/${user.id}?v=4`,
    html_url: `https://github.com/${login}`,
    type: 'User',
    site_admin: false,
    name: user.name ?? null,
    email: user.emailPublic && user.email ? user.email : null,
  };
}

function emailsBody(user: FakeUser): Record<string, unknown>[] {
  const primary = user.email
    ? [{ email: user.email, primary: true, verified: isVerified(user), visibility: user.emailPublic ? 'public' : 'private' }]
    : [];
  const extra = (user.extraEmails ?? []).map((entry) => ({ ...entry, visibility: null }));
  return [...primary, ...extra];
}

export function githubProfile({ ex, endpoint, grant }: ResourceContext): void {
  if (!ex.req.headers['user-agent']) return sendText(ex, 403, NO_USER_AGENT, 'user_agent_required');
  const found = grant(authorizationToken(ex.req, ['bearer', 'token']));
  if (!found) return sendJson(ex, 401, { message: 'Bad credentials', documentation_url: DOCS, status: '401' }, 'bad_credentials');
  const { scopes, user } = found.authorization;
  const headers = { 'x-oauth-scopes': scopes.join(', '), 'x-accepted-oauth-scopes': endpoint === 'emails' ? 'user, user:email' : '' };
  if (endpoint === 'userinfo') return sendJson(ex, 200, userBody(user), 'ok', headers);
  if (!scopes.includes('user:email') && !scopes.includes('user')) {
    return sendJson(ex, 404, { message: 'Not Found', documentation_url: DOCS, status: '404' }, 'missing_scope', headers);
  }
  sendJson(ex, 200, emailsBody(user), 'ok', headers);
}
