/**
 * The userinfo endpoint of the OIDC providers: the id_token's claims for the bearer token
 * (twitch: those its `claims` parameter asked for under `userinfo`). Slack wraps them in
 * `{ ok: true }` and says `{ ok: false, error: "invalid_auth" }` with HTTP 200.
 */
import { authorizationToken, sendJson } from '../http.js';
import { userinfoClaims } from '../id-token.js';
import type { ResourceContext } from '../spec.js';

export function oidcUserinfo({ ex, fake, spec, grant }: ResourceContext): void {
  const token = authorizationToken(ex.req, ['bearer']) ?? ex.form?.access_token;
  const found = grant(token);
  if (!found) {
    if (spec.okEnvelope) return sendJson(ex, 200, { ok: false, error: 'invalid_auth' }, 'invalid_auth');
    const challenge = 'Bearer error="invalid_token", error_description="The access token is invalid or expired."';
    return sendJson(ex, 401, { error: 'invalid_token', error_description: 'The access token is invalid or expired.' }, 'invalid_token', {
      'www-authenticate': challenge,
    });
  }
  const claims = userinfoClaims(fake, spec, found.authorization);
  sendJson(ex, 200, spec.okEnvelope ? { ok: true, ...claims } : claims);
}
