import { AsyncLocalStorage } from 'node:async_hooks';
import type { Request, RequestHandler } from 'express';

const USER_AGENT_MAX = 256;

/** Where a request comes from, as a session and an audit event record it. */
export interface Client {
  userAgent: string | null;
  /** The client's address, by the TRUST_PROXY rules (Express's req.ip). */
  ip: string | null;
}

/** Who does something: a user, an API key, an admin (acting on someone else, or as them), or the app itself. */
export interface Actor {
  type: 'user' | 'apiKey' | 'admin' | 'system';
  id: string | null;
}

export function clientOf(req: Request): Client {
  return { userAgent: req.get('user-agent')?.slice(0, USER_AGENT_MAX) || null, ip: req.ip ?? null };
}

interface RequestContext {
  client: Client;
  /** Who the guard let in, once it has. */
  caller: Actor | null;
}

const storage = new AsyncLocalStorage<RequestContext>();

/**
 * Keeps the request's client (and, once the guard has let it in, its caller) for the rest of the
 * request, so that an account event recorded deep in a service says who did it and from where
 * without every function passing it along (Node's AsyncLocalStorage follows the request's awaits).
 */
export const keepRequestContext: RequestHandler = (req, _res, next) => {
  storage.run({ client: clientOf(req), caller: null }, next);
};

/** Names the caller of the current request (the guard does, once it has let one in). */
export function setCaller(caller: Actor): void {
  const context = storage.getStore();
  if (context) context.caller = caller;
}

/** The current request's client and caller; undefined outside a request (a script, a timer). */
export function requestContext(): Readonly<RequestContext> | undefined {
  return storage.getStore();
}
