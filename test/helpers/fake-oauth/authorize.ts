/**
 * The authorization endpoint: validates the request like the provider, consents at once as the
 * next queued user (no UI), and answers with a code: a 302 to redirect_uri, or for apple an
 * auto-submitting form POST (response_mode=form_post) that a browser or a test can follow.
 */
import { randomBytes } from 'node:crypto';
import { challengeProblem } from './pkce.js';
import { escapeHtml, redirect, sendHtml, type Exchange } from './http.js';
import type { ProviderSpec } from './spec.js';
import type { FakeContext } from './state.js';
import type { Authorization, RequestedClaims } from './types.js';
import { defaultUser, firstAndLastName } from './users.js';

type Params = Record<string, string>;

function errorPage(ex: Exchange, spec: ProviderSpec, error: string, description: string): void {
  const html =
    `<!doctype html><html><head><title>${spec.displayName}: error</title></head>` +
    `<body><h1>Error 400: ${escapeHtml(error)}</h1><p>${escapeHtml(description)}</p></body></html>`;
  sendHtml(ex, 400, html, error);
}

function isHttpUrl(value: string | undefined): value is string {
  try {
    return ['http:', 'https:'].includes(new URL(value ?? '').protocol);
  } catch {
    return false;
  }
}

/** An HTML page whose form posts `fields` to `action` as soon as it loads. */
export function formPostPage(action: string, fields: Params): string {
  const inputs = Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('');
  return (
    `<!doctype html><html><head><title>Sign in</title></head><body>` +
    `<form method="POST" action="${escapeHtml(action)}">${inputs}<noscript><button type="submit">Continue</button></noscript></form>` +
    `<script>document.forms[0].submit()</script></body></html>`
  );
}

/** A redirect with the fields in the query, or (response_mode=form_post where supported) a form post. */
function answer(ex: Exchange, spec: ProviderSpec, redirectUri: string, fields: Params, outcome: string): void {
  if (spec.formPost && ex.query.response_mode === 'form_post') return sendHtml(ex, 200, formPostPage(redirectUri, fields), outcome);
  const target = new URL(redirectUri);
  for (const [name, value] of Object.entries(fields)) target.searchParams.set(name, value);
  redirect(ex, target.toString(), outcome);
}

function parseClaims(raw: string | undefined): RequestedClaims | undefined | null {
  if (raw === undefined) return undefined;
  try {
    const parsed = JSON.parse(raw) as unknown;
    return parsed && typeof parsed === 'object' ? (parsed as RequestedClaims) : null;
  } catch {
    return null;
  }
}

/** Apple's first-login `user` field: the requested parts of `{ name: { firstName, lastName }, email }`. */
function appleUserField(authorization: Authorization): Params {
  const { user, scopes } = authorization;
  if (user.firstLogin === false || !(scopes.includes('name') || scopes.includes('email'))) return {};
  const value = {
    ...(scopes.includes('name') ? { name: firstAndLastName(user) } : {}),
    ...(scopes.includes('email') && user.email ? { email: user.email } : {}),
  };
  return { user: JSON.stringify(value) };
}

/** The problem that makes the authorize request fail back at the client, if any. */
function requestProblem(spec: ProviderSpec, q: Params): [string, string] | undefined {
  if (q.response_type !== 'code') return ['unsupported_response_type', 'response_type must be code.'];
  if (spec.requiresState && !q.state) return ['invalid_request', 'state is required.'];
  const pkce = challengeProblem(spec, q.code_challenge, q.code_challenge_method);
  if (pkce) return ['invalid_request', pkce];
  if (spec.claimsParameter && parseClaims(q.claims) === null) return ['invalid_request', 'claims is not a JSON object.'];
  return undefined;
}

export function handleAuthorize(fake: FakeContext, spec: ProviderSpec, ex: Exchange, tenant?: string): void {
  const q = ex.query;
  if (q.client_id !== fake.clients[spec.id].id) return errorPage(ex, spec, 'invalid_client', 'The OAuth client was not found.');
  if (!isHttpUrl(q.redirect_uri)) return errorPage(ex, spec, 'invalid_request', 'redirect_uri is missing or not a URL.');
  const scopes = (q.scope ?? '').split(/[\s,]+/).filter(Boolean);
  if (spec.formPost && (scopes.includes('name') || scopes.includes('email')) && q.response_mode !== 'form_post') {
    return errorPage(ex, spec, 'invalid_request', 'Invalid response_mode: form_post is required when requesting name or email.');
  }
  const state: Params = q.state === undefined ? {} : { state: q.state };
  const problem = requestProblem(spec, q);
  if (problem) return answer(ex, spec, q.redirect_uri, { error: problem[0], error_description: problem[1], ...state }, problem[0]);
  if (fake.state.takeFault(spec.id, ['access_denied'])) {
    const denied = { error: 'access_denied', error_description: 'The user denied the request.', ...state };
    return answer(ex, spec, q.redirect_uri, denied, 'access_denied');
  }
  const authorization: Authorization = {
    provider: spec.id,
    code: randomBytes(24).toString('base64url'),
    clientId: q.client_id,
    redirectUri: q.redirect_uri,
    scopes,
    state: q.state,
    nonce: q.nonce,
    codeChallenge: q.code_challenge,
    codeChallengeMethod: q.code_challenge ? (q.code_challenge_method ?? 'plain') : q.code_challenge_method,
    claims: parseClaims(q.claims) ?? undefined,
    tenant,
    user: fake.state.takeUser(spec.id) ?? defaultUser(spec.id),
    issuedAt: Date.now(),
    redeemed: false,
  };
  fake.state.authorizations.set(authorization.code, authorization);
  const extra = spec.formPost ? appleUserField(authorization) : {};
  answer(ex, spec, q.redirect_uri, { code: authorization.code, ...state, ...extra }, 'ok');
}
