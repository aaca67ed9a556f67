/**
 * Facebook's Graph `GET /v26.0/me`: requires `appsecret_proof` (hex HMAC-SHA256 of the access
 * token keyed with the app secret), honours `fields` (default id,name), and never says whether
 * the email is verified. `email` only with the `email` scope and when the account has one.
 */
import { createHmac } from 'node:crypto';
import { graphError } from '../dialects.js';
import { authorizationToken, sendJson } from '../http.js';
import type { ResourceContext } from '../spec.js';
import type { FakeUser } from '../types.js';
import { firstAndLastName } from '../users.js';

function fieldValues(user: FakeUser, scopes: string[]): Record<string, unknown> {
  const { firstName, lastName } = firstAndLastName(user);
  return {
    id: user.id,
    name: user.name,
    first_name: firstName,
    last_name: lastName,
    email: scopes.includes('email') && user.email ? user.email : undefined,
    picture: {
      data: { height: 50, width: 50, is_silhouette: !user.picture, url: user.picture ?? 'https://static.xx.fbcdn.net/silhouette.png' },
    },
  };
}

export function facebookProfile({ ex, fake, grant }: ResourceContext): void {
  const token = ex.query.access_token ?? authorizationToken(ex.req, ['bearer', 'oauth']);
  const found = grant(token);
  if (!found) return graphError(ex, 400, 'Invalid OAuth access token - Cannot parse access token', 190, 'OAuthException', 'invalid_token');
  const proof = ex.query.appsecret_proof;
  const expected = createHmac('sha256', fake.clients.facebook.secret).update(token!).digest('hex');
  if (proof !== expected) {
    const message = proof
      ? 'Invalid appsecret_proof provided in the API argument'
      : 'API calls from the server require an appsecret_proof argument';
    return graphError(ex, 400, message, 100, 'GraphMethodException', proof ? 'appsecret_proof_invalid' : 'appsecret_proof_missing');
  }
  const values = fieldValues(found.authorization.user, found.authorization.scopes);
  const requested = (ex.query.fields ?? 'id,name').split(',').map((field) => field.trim().split(/[.{]/)[0]!).filter(Boolean);
  const unknown = requested.find((field) => !(field in values));
  if (unknown) {
    const message = `(#100) Tried accessing nonexisting field (${unknown}) on node type (User)`;
    return graphError(ex, 400, message, 100, 'OAuthException', 'unknown_field');
  }
  sendJson(ex, 200, Object.fromEntries(requested.filter((field) => values[field] !== undefined).map((field) => [field, values[field]])));
}
