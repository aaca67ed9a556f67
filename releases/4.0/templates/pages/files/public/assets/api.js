/**
 * Calls this app's API: JSON in and out, the tab's access token as a Bearer header. Every request
 * asks for the cookie transport, so sign-ins and refreshes put the refresh token in an HttpOnly
 * cookie (scoped to /api/auth) instead of the answer; the access token is refreshed before it expires.
 */
import { accessToken, accessTokenRefreshAt, forgetSession, keepToken, mayHaveSession } from './session.js';

const TRANSPORT = { 'refresh-token-transport': 'cookie' };

/** An error answer of the API, { error: { code, message, details } }, with its HTTP status. */
export class ApiError extends Error {
  constructor(status, { code, message, details }) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details ?? [];
  }
}

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

let refreshing;

/**
 * Trades the refresh cookie for a new access token (and a new cookie), one refresh at a time per
 * tab. Resolves to true when signed in. Another tab may refresh at the same moment and use the
 * cookie up first: its new cookie is this tab's too, so one 401 is tried again after a pause.
 */
export function refreshSession() {
  refreshing ??= (async () => {
    for (let attempt = 0; attempt < 2; attempt++) {
      let response;
      try {
        response = await fetch('/api/auth/refresh', { method: 'POST', headers: { accept: 'application/json', ...TRANSPORT } });
      } catch {
        return false; // offline: keep what this tab has
      }
      if (response.ok) {
        keepToken(await response.json());
        return true;
      }
      if (response.status !== 401) return false;
      await pause(500);
    }
    forgetSession();
    return false;
  })().finally(() => {
    refreshing = undefined;
  });
  return refreshing;
}

/** Whether this tab is signed in: it has an access token, or the refresh cookie still gets one. */
export async function signedIn() {
  if (accessToken()) return true;
  return mayHaveSession() && refreshSession();
}

async function send(path, method, body) {
  const headers = { accept: 'application/json', ...TRANSPORT };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const token = accessToken();
  if (token) headers.authorization = `Bearer ${token}`;
  try {
    return await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, { code: 'NETWORK_ERROR', message: 'The server cannot be reached. Check your connection and try again.' });
  }
}

/**
 * `api('/api/auth/me')`, `api('/api/auth/login', { body })`: GET without a body, POST with one,
 * unless `method` says otherwise. Resolves to the parsed answer (undefined for 204).
 */
export async function api(path, { method, body } = {}) {
  const verb = method ?? (body === undefined ? 'GET' : 'POST');
  const refreshAt = accessTokenRefreshAt();
  if (accessToken() && refreshAt && Date.now() >= refreshAt) await refreshSession();
  let response = await send(path, verb, body);
  // The access token expired or its session ended (a 401 that asks for a Bearer token): a refresh
  // tells which, and the request is tried once more. A wrong password is a 401 without that header.
  if (response.status === 401 && response.headers.has('www-authenticate') && accessToken() && (await refreshSession())) {
    response = await send(path, verb, body);
  }
  if (response.status === 204) return undefined;
  const answer = await response.json().catch(() => undefined);
  if (!response.ok) {
    throw new ApiError(response.status, answer?.error ?? { code: 'HTTP_ERROR', message: `The server answered with status ${response.status}.` });
  }
  return answer;
}

let providerList;
/** GET /api/auth/providers, asked once per page: { methods, oauth: [{ id, name, configured }], hosted }. */
export function providers() {
  providerList ??= api('/api/auth/providers');
  return providerList;
}
