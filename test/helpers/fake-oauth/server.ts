/**
 * One HTTP server for all providers: finds the provider and endpoint from the path
 * (`/{provider}/...` as in PROVIDERS), records the request, and hands it to the endpoint.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { handleAuthorize } from './authorize.js';
import { discoveryDocument, DISCOVERY_PATH, isKnownTenant, jwks } from './discovery.js';
import { fromSearchParams, parseBody, readBody, sendJson, type Exchange } from './http.js';
import { oidcUserinfo } from './profiles/oidc.js';
import { PROVIDERS } from './providers.js';
import type { ProviderSpec } from './spec.js';
import type { FakeContext } from './state.js';
import { handleToken } from './token.js';
import { PROVIDER_IDS, type Endpoint, type Fault, type RecordedRequest } from './types.js';

interface Route {
  spec: ProviderSpec;
  endpoint: Endpoint;
  segments: string[];
}

const TENANT = '{tenant}';

function splitPath(path: string): string[] {
  return path.split('/').filter(Boolean);
}

const ROUTES: Route[] = PROVIDER_IDS.flatMap((id) => {
  const spec = PROVIDERS[id];
  const discovery = spec.protocol === 'oidc' && !spec.routes.discovery ? { discovery: DISCOVERY_PATH } : {};
  return Object.entries({ ...spec.routes, ...discovery }).map(([endpoint, path]) => ({
    spec,
    endpoint: endpoint as Endpoint,
    segments: [id, ...splitPath(path)],
  }));
});

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function matchRoute(pathname: string): { route: Route; tenant?: string } | undefined {
  const segments = splitPath(pathname).map(decodeSegment);
  for (const route of ROUTES) {
    if (route.segments.length !== segments.length) continue;
    const tenantAt = route.segments.indexOf(TENANT);
    if (route.segments.every((segment, i) => segment === TENANT || segment === segments[i])) {
      return { route, tenant: tenantAt < 0 ? undefined : segments[tenantAt] };
    }
  }
  return undefined;
}

function allowedMethods(spec: ProviderSpec, endpoint: Endpoint): string[] {
  if (endpoint === 'token') return spec.tokenViaGet ? ['POST', 'GET'] : ['POST'];
  if (endpoint === 'userinfo' && spec.protocol === 'oidc') return ['GET', 'POST'];
  return ['GET'];
}

const DISCOVERY_FAULTS = [
  'discovery_500',
  'discovery_issuer_mismatch',
  'discovery_no_authorization_endpoint',
  'discovery_authorization_endpoint_not_url',
  'discovery_javascript_authorization_endpoint',
] as const;

/** What each discovery fault does to the document. */
const DOCUMENT_DEFECTS: Record<Exclude<(typeof DISCOVERY_FAULTS)[number], 'discovery_500'>, (document: Record<string, unknown>) => void> = {
  discovery_issuer_mismatch: (document) => (document.issuer = `${String(document.issuer)}/`),
  discovery_no_authorization_endpoint: (document) => delete document.authorization_endpoint,
  discovery_authorization_endpoint_not_url: (document) => (document.authorization_endpoint = 'not a url'),
  discovery_javascript_authorization_endpoint: (document) => (document.authorization_endpoint = 'javascript:alert(document.domain)//'),
};

function serveDiscovery(fake: FakeContext, spec: ProviderSpec, ex: Exchange, tenant: string): void {
  const fault = fake.state.takeFault(spec.id, DISCOVERY_FAULTS);
  if (fault === 'discovery_500') return sendJson(ex, 500, { error: 'server_error' }, fault);
  const document = discoveryDocument(fake, spec, tenant);
  if (fault) DOCUMENT_DEFECTS[fault](document);
  sendJson(ex, 200, document, fault ?? 'ok');
}

/** The *_huge fault of each endpoint. */
const HUGE_FAULTS: Record<Exclude<Endpoint, 'authorize'>, Fault> = {
  discovery: 'discovery_huge',
  jwks: 'jwks_huge',
  token: 'token_huge',
  userinfo: 'userinfo_huge',
  emails: 'userinfo_huge',
};

function serveProfile(fake: FakeContext, spec: ProviderSpec, ex: Exchange, endpoint: 'userinfo' | 'emails'): void {
  const fault = fake.state.takeFault(spec.id, ['userinfo_500']);
  if (fault) return sendJson(ex, 500, { error: 'server_error' }, fault);
  const grant = (token: string | undefined) => fake.state.grant(spec.id, token);
  (spec.profile ?? oidcUserinfo)({ fake, spec, ex, endpoint, grant });
}

async function dispatch(fake: FakeContext, ex: Exchange, route: Route, tenant: string | undefined): Promise<void> {
  const { spec, endpoint } = route;
  if (!allowedMethods(spec, endpoint).includes(ex.req.method ?? '')) {
    return sendJson(ex, 405, { error: 'method_not_allowed' }, 'method_not_allowed');
  }
  if (tenant !== undefined && !isKnownTenant(tenant)) {
    return sendJson(ex, 400, { error: 'invalid_tenant', error_description: `AADSTS90002: Tenant '${tenant}' not found.` }, 'invalid_tenant');
  }
  if (endpoint === 'authorize') return handleAuthorize(fake, spec, ex, tenant);
  ex.huge = fake.state.takeFault(spec.id, [HUGE_FAULTS[endpoint]]);
  if (endpoint === 'token') return handleToken(fake, spec, ex);
  if (endpoint === 'jwks') return sendJson(ex, 200, jwks(fake, spec));
  if (endpoint === 'discovery') return serveDiscovery(fake, spec, ex, tenant ?? '');
  serveProfile(fake, spec, ex, endpoint);
}

async function onRequest(fake: FakeContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', fake.baseUrl);
  const match = matchRoute(url.pathname);
  if (!match) {
    res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'not_found', path: url.pathname }));
    return;
  }
  const text = await readBody(req);
  const body = parseBody(req, text);
  const query = fromSearchParams(url.searchParams);
  const record: RecordedRequest = {
    provider: match.route.spec.id,
    endpoint: match.route.endpoint,
    method: req.method ?? 'GET',
    path: url.pathname,
    query,
    headers: req.headers,
    body: body.form ?? body.json ?? body.raw,
  };
  fake.state.records.push(record);
  const ex: Exchange = { req, res, url, query, form: body.form, json: body.json, record };
  try {
    await dispatch(fake, ex, match.route, match.tenant);
  } catch (error) {
    if (!res.headersSent) sendJson(ex, 500, { error: 'fake_provider_error', message: (error as Error).message }, 'fake_provider_error');
  }
}

/** `fake.baseUrl` may be set after listen(): it is read per request. */
export function createFakeServer(fake: FakeContext): Server {
  return createServer((req, res) => {
    onRequest(fake, req, res).catch(() => {
      if (!res.headersSent) res.writeHead(400).end();
    });
  });
}
