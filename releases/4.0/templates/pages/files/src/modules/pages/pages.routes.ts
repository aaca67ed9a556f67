import { readdirSync } from 'node:fs';
import path from 'node:path';
import { Router, type NextFunction, type Response } from 'express';
import { APP_ROOT } from '../../app-root.js';
import type { AppContext } from '../../context.js';
import { notFound } from '../../http/app-error.js';

/** public/ at the project root. */
export const PUBLIC_DIR = path.join(APP_ROOT, 'public');

export interface Page {
  /** The route: /, /account, /invite/:token. */
  path: string;
  /** The HTML file, relative to public/. */
  file: string;
}

/**
 * Every HTML file under public/ is a page, at the path its name gives: index.html at /,
 * auth/callback.html at /auth/callback, and a [name] segment is a route parameter, so
 * invite/[token].html answers /invite/:token.
 */
export function listPages(dir = PUBLIC_DIR): Page[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((file) => file.split('\\').join('/'))
    .filter((file) => file.endsWith('.html'))
    .sort()
    .map((file) => {
      const route = file.replace(/\.html$/, '').replace(/(^|\/)index$/, '').replace(/\[(\w+)\]/g, ':$1');
      return { path: `/${route}`, file };
    });
}

/**
 * Sends a file of public/. Pages and assets are revalidated on every use (no-cache, with ETag), so
 * a deploy shows at once; they hold no secrets, unlike /api answers, which are never stored.
 * A path that names a folder (/assets/., /assets/x/..) or leaves public/ is no file: 404.
 */
function sendPublicFile(res: Response, next: NextFunction, file: string): void {
  res.sendFile(file, { root: PUBLIC_DIR, index: false, cacheControl: false, headers: { 'Cache-Control': 'no-cache' } }, (error?: Error & { status?: number; code?: string }) => {
    if (!error || res.headersSent) return;
    const noFile = error.code === 'EISDIR' || (error.status !== undefined && error.status < 500);
    next(noFile ? notFound('No such file.') : error);
  });
}

/**
 * The built-in pages: plain HTML, CSS and ES modules that use this API as any front end would.
 * Each page has its own route, so request logs name it (/invite/:token, /assets/*file), never
 * the URL with its token.
 */
export function createPageRoutes(_ctx: AppContext): Router {
  const router = Router();
  for (const page of listPages()) {
    router.get(page.path, (_req, res, next) => sendPublicFile(res, next, page.file));
  }
  router.get('/assets/*file', (req, res, next) => {
    // Each segment is a plain name: never . or .., nor one that hides a slash (%2F).
    const segments = req.params.file as string[];
    if (segments.some((segment) => segment === '.' || segment === '..' || /[/\\]/.test(segment))) {
      next(notFound('No such file.'));
      return;
    }
    sendPublicFile(res, next, `assets/${segments.join('/')}`);
  });
  return router;
}
