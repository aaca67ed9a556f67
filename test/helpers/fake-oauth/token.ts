/**
 * The token endpoint: authenticates the client the provider's way, redeems the code once
 * (bound to client, redirect_uri, expiry and PKCE), and answers in the provider's dialect with an
 * access token and, for OIDC, an id_token.
 */
import { randomBytes } from 'node:crypto';
import { authenticateClient } from './client-auth.js';
import type { TokenErrorKind } from './dialects.js';
import { sendJson, type Exchange } from './http.js';
import { mintIdToken } from './id-token.js';
import { verifierProblem } from './pkce.js';
import type { ProviderSpec } from './spec.js';
import type { FakeContext } from './state.js';
import type { Authorization } from './types.js';

const TOKEN_FAULTS = ['token_500', 'token_hang', 'token_error_200'] as const;

type Problem = [TokenErrorKind, string];

/** The token request's parameters: the form (or JSON where the provider takes it; query for GET). */
function paramsOf(spec: ProviderSpec, ex: Exchange): Record<string, string> | undefined {
  if (ex.req.method === 'GET') return ex.query;
  if (ex.form) return ex.form;
  if (spec.acceptsJsonTokenBody && ex.json && typeof ex.json === 'object') {
    return Object.fromEntries(Object.entries(ex.json).map(([key, value]) => [key, String(value)]));
  }
  return undefined;
}

/** Finds the code and burns it; any problem with the code itself is invalid_grant. */
function redeem(fake: FakeContext, spec: ProviderSpec, clientId: string, code: string | undefined): Authorization | Problem {
  const authorization = code === undefined ? undefined : fake.state.authorizations.get(code);
  if (!authorization || authorization.provider !== spec.id || authorization.clientId !== clientId) {
    return ['invalid_grant', 'The authorization code is invalid.'];
  }
  if (authorization.redeemed) {
    fake.state.revokeGrantsOf(authorization);
    return ['invalid_grant', 'The authorization code was already used.'];
  }
  authorization.redeemed = true;
  if (Date.now() - authorization.issuedAt > spec.codeLifetimeSeconds * 1000) return ['invalid_grant', 'The authorization code expired.'];
  return authorization;
}

function grantProblem(spec: ProviderSpec, authorization: Authorization, params: Record<string, string>): Problem | undefined {
  if (params.redirect_uri !== authorization.redirectUri) {
    return ['redirect_uri_mismatch', 'The redirect_uri does not match the one of the authorization request.'];
  }
  const pkce = verifierProblem(spec, authorization, params.code_verifier);
  return pkce ? ['invalid_grant', pkce] : undefined;
}

async function issue(fake: FakeContext, spec: ProviderSpec, ex: Exchange, authorization: Authorization, secret: string): Promise<void> {
  const accessToken = spec.tokenPrefix + randomBytes(24).toString('base64url');
  const expiresIn = spec.accessTokenSeconds;
  fake.state.grants.set(accessToken, {
    accessToken,
    authorization,
    expiresAt: expiresIn === undefined ? undefined : Date.now() + expiresIn * 1000,
    revoked: false,
  });
  const { scopes } = authorization;
  const refresh = spec.refreshToken === true || (spec.refreshToken !== undefined && scopes.includes(spec.refreshToken));
  const wantsIdToken = spec.protocol === 'oidc' && (scopes.includes('openid') || spec.idTokenWithoutOpenid);
  spec.dialect.success(ex, {
    access_token: accessToken,
    ...(expiresIn === undefined ? {} : { expires_in: expiresIn }),
    ...(refresh ? { refresh_token: randomBytes(24).toString('base64url') } : {}),
    scope: scopes,
    ...(wantsIdToken ? { id_token: await mintIdToken(fake, spec, authorization, secret) } : {}),
  });
}

export async function handleToken(fake: FakeContext, spec: ProviderSpec, ex: Exchange): Promise<void> {
  const fault = fake.state.takeFault(spec.id, TOKEN_FAULTS);
  if (fault === 'token_500') return sendJson(ex, 500, { error: 'server_error' }, fault);
  if (fault === 'token_hang') {
    ex.record.outcome = fault;
    fake.hanging.add(ex.res);
    return;
  }
  if (fault === 'token_error_200') return spec.dialect.error(ex, 'invalid_grant', 'The code passed is incorrect or expired.');
  const fail = ([kind, description]: Problem) => spec.dialect.error(ex, kind, description);
  const params = paramsOf(spec, ex);
  if (!params) return fail(['invalid_request', 'The body must be application/x-www-form-urlencoded.']);
  const client = await authenticateClient(fake, spec, ex, params);
  if (!client.ok) return fail([client.kind, client.description]);
  if (spec.rejectsCodeVerifier && params.code_verifier !== undefined) {
    return fail(['bad_secret', 'Client authentication failed (PKCE is not enabled for this app).']);
  }
  if (params.grant_type === undefined && !spec.grantTypeOptional) return fail(['invalid_request', 'grant_type is required.']);
  if ((params.grant_type ?? 'authorization_code') !== 'authorization_code') {
    return fail(['unsupported_grant_type', `grant_type ${params.grant_type} is not supported.`]);
  }
  const redeemed = redeem(fake, spec, client.clientId, params.code);
  if (Array.isArray(redeemed)) return fail(redeemed);
  const problem = grantProblem(spec, redeemed, params);
  if (problem) return fail(problem);
  await issue(fake, spec, ex, redeemed, client.secret);
}
