import type { ExpressAuthConfig } from '@auth/express';
import type { Config } from '../../../config.js';
import type { AppContext } from '../../../context.js';
import type { Logger } from '../../../logger.js';
import { authjsAdapter } from './authjs-adapter.js';
import { authjsProviders } from './authjs-providers.js';

/** Where Auth.js is mounted; its routes are {API_URL}/api/auth/authjs/… */
export const AUTHJS_PATH = '/api/auth/authjs';

/** Auth.js's own name for its session cookie (with the __Secure- prefix over https). */
export function sessionCookieName(config: Config): string {
  return `${config.API_URL.startsWith('https:') ? '__Secure-' : ''}authjs.session-token`;
}

/**
 * Where Auth.js may send the browser after signing in or out: a path or URL of the front end
 * (APP_URL), or one of its own pages on API_URL. Anything else, and the bare API root it uses when
 * no callbackUrl was given, goes to APP_URL.
 */
function safeRedirect(config: Config, url: string): string {
  let target: URL;
  try {
    target = new URL(url, `${config.APP_URL}/`);
  } catch {
    return config.APP_URL;
  }
  if (target.origin === new URL(config.APP_URL).origin) return target.href;
  if (target.origin === new URL(config.API_URL).origin && target.pathname.startsWith(AUTHJS_PATH)) return target.href;
  return config.APP_URL;
}

/** An Auth.js error as a log entry: its type, its message without the link to the docs, and what caused it. */
function describeError(error: Error) {
  const cause = (error.cause as { err?: unknown } | undefined)?.err;
  return {
    type: (error as { type?: string }).type ?? error.name,
    message: error.message.replace(/\s*Read more at \S+$/, '') || undefined,
    cause: cause instanceof Error ? cause.name : undefined,
  };
}

/** Auth.js's messages go to the app's JSON log, never a request or a token. */
function authjsLogger(logger: Logger): ExpressAuthConfig['logger'] {
  return {
    error: (error) => logger.warn({ authjs: describeError(error) }, 'auth.js error'),
    warn: (warning) => logger.warn({ authjs: { warning } }, 'auth.js warning'),
    debug: () => {},
  };
}

/**
 * The Auth.js configuration: database sessions through the adapter over the Authjs* tables, the
 * session cookie scoped to Auth.js's routes (the exchange is one of them), redirects kept on the
 * app's own origins. `trustHost` is safe because every request's origin is set from API_URL
 * before Auth.js sees it (authjs.routes.ts).
 */
export function authjsOptions(ctx: AppContext, secret: string): ExpressAuthConfig {
  const { config } = ctx;
  const secure = config.API_URL.startsWith('https:');
  return {
    secret,
    trustHost: true,
    basePath: AUTHJS_PATH,
    adapter: authjsAdapter(ctx.prisma),
    providers: authjsProviders(ctx),
    session: { strategy: 'database' },
    useSecureCookies: secure,
    cookies: {
      sessionToken: { name: sessionCookieName(config), options: { httpOnly: true, sameSite: 'lax', path: AUTHJS_PATH, secure } },
    },
    callbacks: { redirect: ({ url }) => safeRedirect(config, url) },
    logger: authjsLogger(ctx.logger),
  };
}
