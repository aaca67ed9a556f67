import type { Request, Response } from 'express';
import type { Config } from '../../config.js';
import { invalidToken } from '../../http/app-error.js';
import { clearHostCookie, readHostCookies, setHostCookie, type HostCookie } from '../../http/host-cookies.js';
import type { LoginResult } from './complete-login.js';

/**
 * The browser transport's cookie: no script reads it, and over plain http only requests under
 * /api/auth carry it. Over https it is __Host-gatekit_refresh on Path=/ (see host-cookies.ts).
 */
const REFRESH_COOKIE: HostCookie = { name: 'gatekit_refresh', path: '/api/auth', sameSite: 'strict' };

/**
 * `Refresh-Token-Transport: cookie` asks for the refresh token in a cookie instead of the body. A
 * cross-site form cannot send a custom header, so a refresh that reads the cookie needs it too: no
 * other site can make a visitor's browser refresh (and rotate away) their session.
 */
export function wantsCookieTransport(req: Request): boolean {
  return req.get('refresh-token-transport')?.trim().toLowerCase() === 'cookie';
}

/**
 * Sends the answer of a sign-in or a refresh. A token response's refresh token goes in the cookie,
 * not the body, when the client asked for the cookie transport; refreshExpiresIn stays in the body.
 */
export function sendLoginResult(req: Request, res: Response, config: Config, result: LoginResult, status = 200): void {
  if ('token' in result && result.refreshToken && wantsCookieTransport(req)) {
    const { refreshToken, ...body } = result;
    setHostCookie(res, config.API_URL, REFRESH_COOKIE, refreshToken, result.refreshExpiresIn);
    res.status(status).json(body);
    return;
  }
  res.status(status).json(result);
}

/**
 * The refresh cookie as the browser sent it, or undefined. Two of them mean one was planted (a
 * cookie set by a neighbouring site for a longer path comes first), and neither can be trusted to
 * be the user's: the refresh is refused and nothing is rotated.
 */
export function readRefreshCookie(req: Request, config: Config): string | undefined {
  const values = readHostCookies(req, config.API_URL, REFRESH_COOKIE);
  if (values.length > 1) throw invalidToken('The request carries more than one refresh cookie. Sign in again.');
  return values[0] || undefined;
}

export function clearRefreshCookie(res: Response, config: Config): void {
  clearHostCookie(res, config.API_URL, REFRESH_COOKIE);
}
