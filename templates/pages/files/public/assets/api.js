/** Calls this app's API: JSON in and out, the tab's access token as a Bearer header. */
import { accessToken } from './session.js';

/** An error answer of the API, { error: { code, message, details } }, with its HTTP status. */
export class ApiError extends Error {
  constructor(status, { code, message, details }) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details ?? [];
  }
}

/**
 * `api('/api/auth/me')`, `api('/api/auth/login', { body })`: GET without a body, POST with one,
 * unless `method` says otherwise. Resolves to the parsed answer (undefined for 204).
 */
export async function api(path, { method, body } = {}) {
  const headers = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const token = accessToken();
  if (token) headers.authorization = `Bearer ${token}`;
  let response;
  try {
    response = await fetch(path, { method: method ?? (body === undefined ? 'GET' : 'POST'), headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, { code: 'NETWORK_ERROR', message: 'The server cannot be reached. Check your connection and try again.' });
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
