import { ServiceUnavailable } from './service-errors.js';

/** Every call to a hosted service gives up after 10 s: a slow or dead service is a 503, never a hung request. */
export const SERVICE_TIMEOUT_MS = 10_000;

/** What a service's API answered: the status, and the body when it was JSON. */
export interface ServiceAnswer {
  status: number;
  body: unknown;
}

function pathOf(url: string): string {
  return new URL(url).pathname;
}

/**
 * A request to a service. A service that cannot be reached, does not answer within the timeout or
 * answers 5xx is ServiceUnavailable; any other answer is the caller's to judge. The reason names
 * the path only (never a query string, header or token).
 */
export async function callService(service: string, url: string, init: { headers?: HeadersInit } = {}): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url, { headers: init.headers, redirect: 'manual', signal: AbortSignal.timeout(SERVICE_TIMEOUT_MS) });
  } catch (error) {
    throw new ServiceUnavailable(`${service} ${pathOf(url)} did not answer (${(error as Error).name})`);
  }
  if (response.status >= 500) throw new ServiceUnavailable(`${service} ${pathOf(url)} answered HTTP ${response.status}`);
  return response;
}

/** GET a service's JSON API. The body is read within the same timeout; undefined when it is not JSON. */
export async function getServiceJson(service: string, url: string, headers: Record<string, string>): Promise<ServiceAnswer> {
  const response = await callService(service, url, { headers: { accept: 'application/json', ...headers } });
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    throw new ServiceUnavailable(`${service} ${pathOf(url)} did not finish its answer (${(error as Error).name})`);
  }
  try {
    return { status: response.status, body: JSON.parse(text) as unknown };
  } catch {
    return { status: response.status, body: undefined };
  }
}
