import type { RequestHandler } from 'express';

/**
 * Hands `router` only the requests whose path is `prefix` or starts with `prefix/` (ignoring case,
 * as Express matches routes). Every other request skips all of the router's routes with one test:
 * Express alone would try each route of each router in turn, and a members page was compared with
 * some ninety routes of the sign-in modules before its own. Unlike
 * `app.use(prefix, router)`, the routes keep their full paths.
 */
export function underPath(prefix: string, router: RequestHandler): RequestHandler {
  const pattern = new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?:/|$)`, 'i');
  return (req, res, next) => {
    if (pattern.test(req.path)) router(req, res, next);
    else next();
  };
}
