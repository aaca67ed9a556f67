import type { Request, Response } from 'express';
import type { Config } from '../../../config.js';

/** One of the short-lived, httpOnly cookies of an OAuth flow. */
export interface OAuthCookie {
  name: string;
  /** The narrowest path that still reaches the routes reading it (used over plain http). */
  path: string;
  maxAgeSeconds: number;
}

/** The flow between the start and the callback: state, PKCE verifier, nonce, provider, returnTo. */
export const FLOW_COOKIE: OAuthCookie = { name: 'gatekit_oauth', path: '/api/auth', maxAgeSeconds: 10 * 60 };
/** Binds a link URL to the browser whose POST /link answer set it. */
export const LINK_COOKIE: OAuthCookie = { name: 'gatekit_oauth_link', path: '/api/auth', maxAgeSeconds: 5 * 60 };
/** Binds an exchange code to the browser that went through the callback. */
export const EXCHANGE_COOKIE: OAuthCookie = { name: 'gatekit_oauth_exchange', path: '/api/auth/exchange', maxAgeSeconds: 60 };

/**
 * Over https every OAuth cookie takes the __Host- prefix. Browsers accept such a cookie only from
 * this very host, Secure, without a Domain and with Path=/, so a neighbouring subdomain cannot
 * plant its own flow, link or exchange cookie in a visitor's browser (cookie tossing) and make
 * them finish its flow. The prefix rules out a narrower path; each cookie is httpOnly, short-lived
 * and cleared once used, so reaching the API's other paths costs nothing. Over plain http
 * (development) no prefix is possible and each cookie keeps its narrow path.
 */
function isSecure(config: Config): boolean {
  return config.API_URL.startsWith('https:');
}

function nameOf(config: Config, cookie: OAuthCookie): string {
  return isSecure(config) ? `__Host-${cookie.name}` : cookie.name;
}

function optionsOf(config: Config, cookie: OAuthCookie) {
  const secure = isSecure(config);
  return { path: secure ? '/' : cookie.path, httpOnly: true, secure, sameSite: 'lax' as const };
}

export function setOAuthCookie(res: Response, config: Config, cookie: OAuthCookie, value: string): void {
  res.cookie(nameOf(config, cookie), value, { ...optionsOf(config, cookie), maxAge: cookie.maxAgeSeconds * 1000 });
}

export function clearOAuthCookie(res: Response, config: Config, cookie: OAuthCookie): void {
  res.clearCookie(nameOf(config, cookie), optionsOf(config, cookie));
}

/** The cookie's value as this browser sent it, or undefined. */
export function readOAuthCookie(req: Request, config: Config, cookie: OAuthCookie): string | undefined {
  const name = nameOf(config, cookie);
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=') || undefined;
  }
  return undefined;
}
