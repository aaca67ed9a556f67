/**
 * One HTTP server on 127.0.0.1 (random port) hosting the Clerk, Auth0 and Supabase stand-ins under
 * `/clerk` + `/clerk-api`, `/auth0` and `/supabase`, plus the attacker's JWKS at `/attacker/jwks.json`.
 * Every request is recorded; faults make a service's next user-API or key request fail or hang.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAuth0, type Auth0Env, type FakeAuth0 } from './auth0.js';
import { createClerk, type ClerkEnv, type FakeClerk } from './clerk.js';
import { json, matchRoute, type Host, type HostedRequest, type Reply, type RouteKind, type ServiceHandler, type ServiceName } from './http.js';
import { jwks } from './keys.js';
import { createSupabase, type FakeSupabase, type SupabaseEnv } from './supabase.js';
import { generateAttackerKeys } from './token-forgery.js';

/**
 * `api_*` hits the service's user API (Clerk `GET /v1/users/{id}`, Auth0 `/userinfo`, Supabase
 * `GET /auth/v1/user`); `jwks_*` its key endpoints (JWKS, and Auth0's OpenID configuration).
 * `*_500` answers 500 in the service's error format; `*_hang` never answers, until close().
 */
export type HostedFault = 'api_500' | 'api_hang' | 'jwks_500' | 'jwks_hang';

export interface RecordedRequest {
  /** From the first path segment; null for paths outside every service. */
  service: Host | null;
  method: string;
  /** Path and query string as sent. */
  path: string;
  /** Lower-case names, `authorization` and `apikey` included. */
  headers: Record<string, string>;
}

export interface FakeHostedOptions {
  /** Clerk's CLERK_AUTHORIZED_PARTIES and the session tokens' `azp`. Default `http://app.test`. */
  authorizedParty?: string;
}

export interface FakeHosted {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string;
  clerk: FakeClerk;
  auth0: FakeAuth0;
  supabase: FakeSupabase;
  /** The three services' env() together (Auth0 without trailing slash, Supabase without legacy secret). */
  env(): ClerkEnv & Auth0Env & SupabaseEnv;
  /** Queues a fault for the service's next request of that kind; several queue up in order. */
  failNext(service: ServiceName, fault: HostedFault): void;
  /** Requests received so far, oldest first, optionally of one service. */
  requests(service?: Host): RecordedRequest[];
  clearRequests(): void;
  /** Cuts hanging requests and open connections, then stops listening. Safe to call twice. */
  close(): Promise<void>;
}

const HOST_BY_SEGMENT: Record<string, Host> = {
  clerk: 'clerk',
  'clerk-api': 'clerk',
  auth0: 'auth0',
  supabase: 'supabase',
  attacker: 'attacker',
};

function headerRecord(message: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(message.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function send(res: ServerResponse, reply: Reply): void {
  const headers: Record<string, string> = { ...reply.headers };
  let body = '';
  if (reply.json !== undefined) {
    headers['content-type'] = 'application/json; charset=utf-8';
    body = JSON.stringify(reply.json);
  } else if (reply.text !== undefined) {
    headers['content-type'] = 'text/plain; charset=utf-8';
    body = reply.text;
  }
  res.writeHead(reply.status, headers).end(body);
}

function faultKind(fault: HostedFault): RouteKind {
  return fault.startsWith('api_') ? 'user' : 'keys';
}

export async function startFakeHosted(options: FakeHostedOptions = {}): Promise<FakeHosted> {
  const recorded: RecordedRequest[] = [];
  const faults: Record<Host, HostedFault[]> = { clerk: [], auth0: [], supabase: [], attacker: [] };
  const handlers = new Map<Host, ServiceHandler>();

  const server = createServer((req, res) => {
    req.resume();
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) send(res, { status: 500, text: `fake-hosted failed: ${(error as Error).stack ?? String(error)}` });
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', base);
    const method = req.method ?? 'GET';
    const headers = headerRecord(req);
    const service = HOST_BY_SEGMENT[url.pathname.split('/')[1] ?? ''] ?? null;
    recorded.push({ service, method, path: url.pathname + url.search, headers });

    const target = service ? handlers.get(service) : undefined;
    const match = target ? matchRoute(target.routes, method, url.pathname) : undefined;
    if (!target || !match) return send(res, json(404, { error: 'not_found', path: url.pathname }));

    const queue = faults[target.name];
    const index = queue.findIndex((fault) => faultKind(fault) === match.route.kind);
    const fault = index === -1 ? undefined : queue.splice(index, 1)[0];
    if (fault?.endsWith('_hang')) return; // no answer; close() cuts the connection
    if (fault) return send(res, target.serverError());
    const request: HostedRequest = { method, url, headers, params: match.params };
    send(res, await match.route.handle(request));
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const attacker = await generateAttackerKeys(`${base}/attacker/jwks.json`);
  const [clerk, auth0, supabase] = await Promise.all([
    createClerk(base, attacker, options.authorizedParty ?? 'http://app.test'),
    createAuth0(base, attacker),
    createSupabase(base, attacker),
  ]);
  for (const service of [clerk, auth0, supabase]) handlers.set(service.handler.name, service.handler);
  handlers.set('attacker', {
    name: 'attacker',
    routes: [{ method: 'GET', pattern: '/attacker/jwks.json', kind: 'keys', handle: () => json(200, jwks([attacker.rs256, attacker.es256])) }],
    serverError: () => json(500, { error: 'attacker key server failed' }),
  });

  let closing: Promise<void> | undefined;
  return {
    url: base,
    clerk: clerk.api,
    auth0: auth0.api,
    supabase: supabase.api,
    env: () => ({ ...clerk.api.env(), ...auth0.api.env(), ...supabase.api.env() }),
    failNext(service, fault) {
      faults[service].push(fault);
    },
    requests: (service) => recorded.filter((request) => service === undefined || request.service === service),
    clearRequests() {
      recorded.length = 0;
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Every connection, idle or waiting on a hung request.
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
