import type { Request, Response } from 'express';
import type { Config } from '../../config.js';
import type { LoginResult } from './complete-login.js';

/** The browser transport's cookie: only requests under /api/auth carry it, and no script reads it. */
export const REFRESH_COOKIE = 'gatekit_refresh';

/**
 * `Refresh-Token-Transport: cookie` asks for the refresh token in a cookie instead of the body. A
 * cross-site form cannot send a custom header, so a refresh that reads the cookie needs it too: no
 * other site can make a visitor's browser refresh (and rotate away) their session.
 */
export function wantsCookieTransport(req: Request): boolean {
  return req.get('refresh-token-transport')?.trim().toLowerCase() === 'cookie';
}

function cookieOptions(config: Config) {
  return { httpOnly: true, sameSite: 'strict' as const, path: '/api/auth', secure: config.API_URL.startsWith('https:') };
}

/**
 * Sends the answer of a sign-in or a refresh. A token response's refresh token goes in the cookie,
 * not the body, when the client asked for the cookie transport; refreshExpiresIn stays in the body.
 */
export function sendLoginResult(req: Request, res: Response, config: Config, result: LoginResult, status = 200): void {
  if ('token' in result && result.refreshToken && wantsCookieTransport(req)) {
    const { refreshToken, ...body } = result;
    res.cookie(REFRESH_COOKIE, refreshToken, { ...cookieOptions(config), maxAge: result.refreshExpiresIn * 1000 });
    res.status(status).json(body);
    return;
  }
  res.status(status).json(result);
}

/** The refresh cookie as the browser sent it, or undefined. */
export function readRefreshCookie(req: Request): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === REFRESH_COOKIE) return value.join('=') || undefined;
  }
  return undefined;
}

export function clearRefreshCookie(res: Response, config: Config): void {
  res.clearCookie(REFRESH_COOKIE, cookieOptions(config));
}
