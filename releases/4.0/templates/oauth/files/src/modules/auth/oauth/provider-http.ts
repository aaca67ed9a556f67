import type { CustomFetch } from 'openid-client';
import { ProviderError } from './provider-error.js';

/** Every call to a provider gives up after 10 s: a slow or dead provider is provider_error, never a hung request. */
export const PROVIDER_TIMEOUT_SECONDS = 10;

/** No answer of a provider is legitimately this big; a larger one is refused before it is read in full. */
export const MAX_ANSWER_BYTES = 1024 * 1024;

/** Statuses whose Response must have no body. */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * The body of a provider's answer, read chunk by chunk: over MAX_ANSWER_BYTES (declared, or as it
 * arrives, decompressed) the download is cancelled and the answer is provider_error.
 */
async function readLimited(response: Response, url: string): Promise<Uint8Array<ArrayBuffer>> {
  const tooLarge = () => new ProviderError(`${new URL(url).pathname} answered more than ${MAX_ANSWER_BYTES} bytes`);
  if (Number(response.headers.get('content-length')) > MAX_ANSWER_BYTES) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  if (!response.body) return new Uint8Array();
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** What openid-client, jose and getJson pass to fetch. */
interface FetchOptions {
  method?: string;
  headers?: HeadersInit;
  body?: unknown;
  redirect?: RequestRedirect;
  signal?: AbortSignal | null;
}

/**
 * fetch for every call to a provider (discovery, JWKS, token, userinfo and the providers' APIs):
 * the answer is read with the size limit and handed on as an ordinary Response.
 */
export async function limitedFetch(url: string, options: FetchOptions): Promise<Response> {
  const response = await fetch(url, options as RequestInit);
  const body = await readLimited(response, url);
  const headers = new Headers(response.headers);
  // The body is already decoded and may differ in length from what was sent.
  headers.delete('content-encoding');
  headers.delete('content-length');
  const init = { status: response.status, statusText: response.statusText, headers };
  return new Response(NULL_BODY_STATUSES.has(response.status) ? null : body, init);
}

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
    const response = await limitedFetch(url, options);
    return url === tokenEndpoint ? normalizeTokenResponse(response, sink) : response;
  };
}

/** GET a provider's API with the access token, as JSON: an object or an array, nothing else. */
export async function getJson(url: string, accessToken: string, headers: Record<string, string> = {}): Promise<object> {
  let response: Response;
  try {
    response = await limitedFetch(url, {
      headers: { accept: 'application/json', authorization: `Bearer ${accessToken}`, ...headers },
      signal: AbortSignal.timeout(PROVIDER_TIMEOUT_SECONDS * 1000),
    });
  } catch (error) {
    if (error instanceof ProviderError) throw error;
    throw new ProviderError(`${new URL(url).pathname} did not answer: ${(error as Error).name}`);
  }
  if (!response.ok) throw new ProviderError(`${new URL(url).pathname} answered HTTP ${response.status}`);
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    throw new ProviderError(`${new URL(url).pathname} answered something other than JSON`);
  }
  if (typeof body !== 'object' || body === null) throw new ProviderError(`${new URL(url).pathname} answered ${body === null ? 'null' : typeof body}`);
  return body;
}
