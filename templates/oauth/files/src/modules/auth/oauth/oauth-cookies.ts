import type { Request, Response } from 'express';
import type { Config } from '../../../config.js';
import { clearHostCookie, readHostCookies, setHostCookie, type HostCookie } from '../../../http/host-cookies.js';

/**
 * One of the short-lived, httpOnly cookies of an OAuth flow, SameSite=Lax (the provider's redirect
 * back is a top-level navigation from another site). Over https each is a __Host- cookie that a
 * neighbouring subdomain cannot plant (host-cookies.ts); each is cleared once used.
 */
export interface OAuthCookie extends HostCookie {
  maxAgeSeconds: number;
}

/** The flow between the start and the callback: state, PKCE verifier, nonce, provider, returnTo. */
export const FLOW_COOKIE: OAuthCookie = { name: 'gatekit_oauth', path: '/api/auth', sameSite: 'lax', maxAgeSeconds: 10 * 60 };
/** Binds a link URL to the browser whose POST /link answer set it. */
export const LINK_COOKIE: OAuthCookie = { name: 'gatekit_oauth_link', path: '/api/auth', sameSite: 'lax', maxAgeSeconds: 5 * 60 };
/** Binds an exchange code to the browser that went through the callback. */
export const EXCHANGE_COOKIE: OAuthCookie = { name: 'gatekit_oauth_exchange', path: '/api/auth/exchange', sameSite: 'lax', maxAgeSeconds: 60 };

export function setOAuthCookie(res: Response, config: Config, cookie: OAuthCookie, value: string): void {
  setHostCookie(res, config.API_URL, cookie, value, cookie.maxAgeSeconds);
}

export function clearOAuthCookie(res: Response, config: Config, cookie: OAuthCookie): void {
  clearHostCookie(res, config.API_URL, cookie);
}

/** The cookie's value as this browser sent it, or undefined. */
export function readOAuthCookie(req: Request, config: Config, cookie: OAuthCookie): string | undefined {
  return readHostCookies(req, config.API_URL, cookie)[0] || undefined;
}
