/**
 * Auth0: a tenant under `/auth0/` with OpenID discovery, JWKS and `/userinfo`. Access tokens are
 * RS256 JWTs for an API audience plus `<issuer>userinfo`; they carry no email, /userinfo does.
 */
import { base62, hex, nowSeconds } from './ids.js';
import { generateSigningKey, jwks } from './keys.js';
import { bearerToken, json, type HostedRequest, type Reply, type ServiceHandler } from './http.js';
import { mintToken, type AttackerKeys, type TokenOverrides } from './token-forgery.js';
import { newUserId, resolveUser, type HostedUser, type ResolvedUser } from './user.js';
import { verifyIssued } from './verify.js';

export const AUTH0_AUDIENCE = 'https://api.gatekit.test';

export type Auth0Env = {
  /** `<url>/auth0`, without the trailing slash unless asked for (the tokens' `iss` has one). */
  AUTH0_ISSUER_BASE_URL: string;
  AUTH0_AUDIENCE: string;
};

export interface FakeAuth0 {
  env(options?: { trailingSlash?: boolean }): Auth0Env;
  /** Returns the `sub`, `auth0|` and 24 hex digits unless `id` is given. */
  addUser(user?: HostedUser): string;
  /**
   * An access token: header `{alg: RS256, kid, typ: JWT}`, claims `iss` (`<url>/auth0/`, one trailing
   * slash), `sub`, `aud: [AUTH0_AUDIENCE, <issuer>userinfo]`, `iat`, `exp` (iat + 86400),
   * `scope: 'openid profile email'`, `azp` (the client id). No email claim.
   */
  accessToken(sub: string, overrides?: TokenOverrides): Promise<string>;
}

function discovery(issuer: string) {
  return {
    issuer,
    authorization_endpoint: `${issuer}authorize`,
    token_endpoint: `${issuer}oauth/token`,
    device_authorization_endpoint: `${issuer}oauth/device/code`,
    userinfo_endpoint: `${issuer}userinfo`,
    mfa_challenge_endpoint: `${issuer}mfa/challenge`,
    jwks_uri: `${issuer}.well-known/jwks.json`,
    registration_endpoint: `${issuer}oidc/register`,
    revocation_endpoint: `${issuer}oauth/revoke`,
    end_session_endpoint: `${issuer}oidc/logout`,
    scopes_supported: ['openid', 'profile', 'offline_access', 'name', 'given_name', 'family_name', 'nickname', 'email', 'email_verified', 'picture', 'created_at', 'identities', 'phone', 'address'],
    response_types_supported: ['code', 'token', 'id_token', 'code token', 'code id_token', 'token id_token', 'code token id_token'],
    code_challenge_methods_supported: ['S256', 'plain'],
    response_modes_supported: ['query', 'fragment', 'form_post'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['HS256', 'RS256', 'PS256'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'private_key_jwt'],
    claims_supported: ['aud', 'auth_time', 'created_at', 'email', 'email_verified', 'exp', 'family_name', 'given_name', 'iat', 'identities', 'iss', 'name', 'nickname', 'phone_number', 'picture', 'sub'],
    request_uri_parameter_supported: false,
    request_parameter_supported: false,
  };
}

/** The /userinfo answer: OIDC standard claims; `email` and `email_verified` only when the user has an email. */
function userinfo(sub: string, user: ResolvedUser) {
  const handle = user.email?.split('@')[0] ?? sub;
  return {
    sub,
    nickname: handle,
    name: user.name ?? user.email ?? handle,
    picture: user.picture ?? `https://cdn.auth0.com/avatars/${handle.slice(0, 2).toLowerCase()}.png`,
    updated_at: user.createdAt.toISOString(),
    ...(user.email === null ? {} : { email: user.email, email_verified: user.emailVerified }),
  };
}

export async function createAuth0(url: string, attacker: AttackerKeys): Promise<{ api: FakeAuth0; handler: ServiceHandler }> {
  const key = await generateSigningKey('RS256', base62(22));
  const base = `${url}/auth0`;
  const issuer = `${base}/`;
  const clientId = base62(32);
  const users = new Map<string, ResolvedUser>();

  function unauthorized(description: string): Reply {
    description = description.replaceAll('"', "'");
    return {
      status: 401,
      text: 'Unauthorized',
      headers: { 'www-authenticate': `Bearer realm="${issuer}", error="invalid_token", error_description="${description}"` },
    };
  }

  async function handleUserinfo(request: HostedRequest): Promise<Reply> {
    const token = bearerToken(request);
    if (!token) return unauthorized('missing access token');
    let sub: string | undefined;
    try {
      const claims = await verifyIssued(token, (header) => (header.kid === key.kid ? key : undefined), {
        issuer,
        audience: `${issuer}userinfo`,
      });
      sub = claims.sub;
    } catch (error) {
      return unauthorized((error as Error).message);
    }
    const user = sub === undefined ? undefined : users.get(sub);
    return user ? json(200, userinfo(sub!, user)) : unauthorized('user not found');
  }

  const api: FakeAuth0 = {
    env: (options = {}) => ({
      AUTH0_ISSUER_BASE_URL: options.trailingSlash ? issuer : base,
      AUTH0_AUDIENCE,
    }),
    addUser(input = {}) {
      const id = newUserId(users, input.id, () => `auth0|${hex(12)}`);
      users.set(id, resolveUser(input));
      return id;
    },
    async accessToken(sub, overrides) {
      const iat = nowSeconds();
      return mintToken({
        key,
        attacker,
        claims: {
          iss: issuer,
          sub,
          aud: [AUTH0_AUDIENCE, `${issuer}userinfo`],
          iat,
          exp: iat + 86_400,
          scope: 'openid profile email',
          azp: clientId,
        },
        overrides,
      });
    },
  };

  const handler: ServiceHandler = {
    name: 'auth0',
    routes: [
      { method: 'GET', pattern: '/auth0/.well-known/openid-configuration', kind: 'keys', handle: () => json(200, discovery(issuer)) },
      { method: 'GET', pattern: '/auth0/.well-known/jwks.json', kind: 'keys', handle: () => json(200, jwks([key])) },
      { method: ['GET', 'POST'], pattern: '/auth0/userinfo', kind: 'user', handle: handleUserinfo },
    ],
    serverError: () => json(500, { error: 'server_error', error_description: 'Internal Server Error' }),
  };
  return { api, handler };
}
