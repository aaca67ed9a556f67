/** The small HTTP vocabulary the fake services share: requests in, replies out, routes between. */

export type ServiceName = 'clerk' | 'auth0' | 'supabase';

/** Who answers a path: a service, or the attacker's own key server. */
export type Host = ServiceName | 'attacker';

/**
 * Which endpoint a route is, for faults: `user` is the service's user API (Clerk's user lookup,
 * Auth0's /userinfo, Supabase's /auth/v1/user); `keys` is key discovery (JWKS, OpenID configuration).
 */
export type RouteKind = 'user' | 'keys';

export interface HostedRequest {
  method: string;
  url: URL;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** Values of `:name` segments in the route's pattern. */
  params: Record<string, string>;
}

export interface Reply {
  status: number;
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as text/plain when there is no `json`. */
  text?: string;
  headers?: Record<string, string>;
}

export interface Route {
  method: string | string[];
  /** A path such as `/clerk-api/v1/users/:id`; `:name` matches one non-empty segment. */
  pattern: string;
  kind: RouteKind;
  handle(request: HostedRequest): Reply | Promise<Reply>;
}

/** One service (or the attacker) as the server sees it. */
export interface ServiceHandler {
  name: Host;
  routes: Route[];
  /** The service's own answer to an internal error (the `*_500` faults). */
  serverError(): Reply;
}

export function json(status: number, body: unknown, headers?: Record<string, string>): Reply {
  return { status, json: body, headers };
}

/** The route whose method and pattern match, with its parameters. */
export function matchRoute(
  routes: Route[],
  method: string,
  pathname: string,
): { route: Route; params: Record<string, string> } | undefined {
  const segments = pathname.split('/');
  for (const route of routes) {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const parts = route.pattern.split('/');
    if (!methods.includes(method) || parts.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const matches = parts.every((part, index) => {
      const segment = segments[index]!;
      if (!part.startsWith(':')) return part === segment;
      params[part.slice(1)] = decodeURIComponent(segment);
      return segment !== '';
    });
    if (matches) return { route, params };
  }
  return undefined;
}

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive), or undefined. */
export function bearerToken(request: HostedRequest): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  return match?.[1];
}
