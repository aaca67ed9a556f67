import type { CustomFetch } from 'openid-client';
import { ProviderError } from './provider-error.js';

/** Every call to a provider gives up after 10 s: a slow or dead provider is provider_error, never a hung request. */
export const PROVIDER_TIMEOUT_SECONDS = 10;

/** Where the id_token of one token answer is put aside, to be verified on its own (id-token.ts). */
export interface IdTokenSink {
  idToken?: string;
}

function parseBody(text: string, contentType: string): Record<string, unknown> | undefined {
  try {
    if (contentType.includes('application/x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(text));
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const json = (body: object, status: number) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

/**
 * Token endpoints do not all speak RFC 6749. This turns their answers into it before
 * openid-client reads them: GitHub's urlencoded body and its errors sent with HTTP 200, Slack's
 * `{ ok: false, error }`, Twitch's array `scope` and `{ status, message }` errors. The id_token
 * goes to the sink, so that one place verifies it for every provider.
 */
async function normalizeTokenResponse(response: Response, sink: IdTokenSink): Promise<Response> {
  const body = parseBody(await response.text(), response.headers.get('content-type') ?? '');
  if (!body) return json({ error: 'invalid_response', error_description: `unreadable token answer (HTTP ${response.status})` }, 400);
  if (!response.ok || body.error !== undefined || body.ok === false || typeof body.access_token !== 'string') {
    const error = typeof body.error === 'string' ? body.error : typeof body.message === 'string' ? 'invalid_grant' : 'invalid_response';
    return json({ error, error_description: `token endpoint answered HTTP ${response.status}` }, 400);
  }
  const { ok: _ok, id_token: idToken, scope, ...rest } = body;
  sink.idToken = typeof idToken === 'string' ? idToken : undefined;
  return json({ ...rest, ...(scope === undefined ? {} : { scope: Array.isArray(scope) ? scope.join(' ') : scope }) }, 200);
}

/** The fetch openid-client uses for one flow: token answers normalized, everything else as it is. */
export function providerFetch(tokenEndpoint: string | undefined, sink: IdTokenSink): CustomFetch {
  return async (url, options) => {
    const response = await fetch(url, options as RequestInit);
    return url === tokenEndpoint ? normalizeTokenResponse(response, sink) : response;
  };
}

/** GET a provider's API with the access token, as JSON. */
export async function getJson(url: string, accessToken: string, headers: Record<string, string> = {}): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { accept: 'application/json', authorization: `Bearer ${accessToken}`, ...headers },
      signal: AbortSignal.timeout(PROVIDER_TIMEOUT_SECONDS * 1000),
    });
  } catch (error) {
    throw new ProviderError(`${new URL(url).pathname} did not answer: ${(error as Error).name}`);
  }
  if (!response.ok) throw new ProviderError(`${new URL(url).pathname} answered HTTP ${response.status}`);
  try {
    return await response.json();
  } catch {
    throw new ProviderError(`${new URL(url).pathname} answered something other than JSON`);
  }
}
