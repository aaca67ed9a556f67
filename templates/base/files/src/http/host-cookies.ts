import type { Request, Response } from 'express';

/** An httpOnly cookie of the API's own: its name, and the narrowest path it is needed on over plain http. */
export interface HostCookie {
  name: string;
  path: string;
  sameSite: 'lax' | 'strict';
}

/**
 * Over https each of the API's cookies takes the __Host- prefix. Browsers accept such a cookie
 * only from this very host, Secure, without a Domain and with Path=/, so a neighbouring subdomain
 * cannot plant one of its own in a visitor's browser (cookie tossing). The prefix rules out a
 * narrower path; every such cookie is httpOnly. Over plain http (development) no prefix is
 * possible and each cookie keeps its narrow path.
 */
export function cookieOn(apiUrl: string, cookie: HostCookie) {
  const secure = apiUrl.startsWith('https:');
  return {
    name: secure ? `__Host-${cookie.name}` : cookie.name,
    options: { path: secure ? '/' : cookie.path, httpOnly: true, secure, sameSite: cookie.sameSite },
  };
}

export function setHostCookie(res: Response, apiUrl: string, cookie: HostCookie, value: string, maxAgeSeconds: number): void {
  const { name, options } = cookieOn(apiUrl, cookie);
  res.cookie(name, value, { ...options, maxAge: maxAgeSeconds * 1000 });
}

export function clearHostCookie(res: Response, apiUrl: string, cookie: HostCookie): void {
  const { name, options } = cookieOn(apiUrl, cookie);
  res.clearCookie(name, options);
}

/**
 * Every value the browser sent under the cookie's name. A browser sends two cookies of one name
 * when two were set for different paths or domains, so more than one means one was planted.
 */
export function readHostCookies(req: Request, apiUrl: string, cookie: HostCookie): string[] {
  const { name } = cookieOn(apiUrl, cookie);
  const values: string[] = [];
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) values.push(value.join('='));
  }
  return values;
}
