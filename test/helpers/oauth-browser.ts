/**
 * A browser for OAuth flows without a browser: follows the redirects between a generated app and
 * the fake provider by hand, keeping cookies per host as a browser does, so every hop (the start,
 * the provider's authorize page, Apple's form post, the callback) is a real HTTP request.
 */
import { expect } from 'vitest';
import { call } from './app-process.js';
import { parseFormPost } from './fake-oauth/index.js';

export class CookieJar {
  private readonly cookies = new Map<string, Map<string, string>>();

  header(url: string): string | undefined {
    const jar = this.cookies.get(new URL(url).host);
    return jar && jar.size > 0 ? [...jar].map(([name, value]) => `${name}=${value}`).join('; ') : undefined;
  }

  /** Keeps what a response sets; an expired or Max-Age=0 cookie is removed. */
  capture(url: string, response: Response): void {
    const host = new URL(url).host;
    const jar = this.cookies.get(host) ?? new Map<string, string>();
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';').map((part) => part.trim());
      const [name, ...value] = pair!.split('=');
      const expired = attributes.some((attribute) => /^max-age=0$/i.test(attribute) || (/^expires=/i.test(attribute) && Date.parse(attribute.slice(8)) < Date.now()));
      if (expired) jar.delete(name!);
      else jar.set(name!, value.join('='));
    }
    this.cookies.set(host, jar);
  }

  /** A copy of this jar (a second browser that stole the cookies). */
  clone(): CookieJar {
    const copy = new CookieJar();
    for (const [host, jar] of this.cookies) copy.cookies.set(host, new Map(jar));
    return copy;
  }
}

export interface Hop {
  status: number;
  location?: string;
  body: string;
}

/** One request with the jar's cookies, never following redirects. */
export async function visit(jar: CookieJar, url: string, init: { method?: string; form?: Record<string, string>; body?: string; headers?: Record<string, string> } = {}): Promise<Hop> {
  const cookie = jar.header(url);
  const response = await fetch(url, {
    method: init.method ?? (init.form ? 'POST' : 'GET'),
    redirect: 'manual',
    headers: {
      ...(cookie ? { cookie } : {}),
      ...(init.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      ...init.headers,
    },
    body: init.form ? new URLSearchParams(init.form).toString() : init.body,
  });
  jar.capture(url, response);
  const location = response.headers.get('location') ?? undefined;
  return { status: response.status, location: location ? new URL(location, url).href : undefined, body: await response.text() };
}

export interface Landing {
  /** The front end's callback URL the app sent the browser to. */
  url: URL;
  code?: string;
  error?: string;
  returnTo?: string;
}

function landingOf(location: string): Landing {
  const url = new URL(location);
  return { url, code: url.searchParams.get('code') ?? undefined, error: url.searchParams.get('error') ?? undefined, returnTo: url.searchParams.get('returnTo') ?? undefined };
}

/**
 * From the provider's authorize URL to the app's callback URL: the fake consents at once and
 * redirects (or, for Apple, serves a form that posts the callback; the app answers that POST with
 * a 303 to its GET callback, which is returned).
 */
export async function toCallback(jar: CookieJar, authorizeUrl: string): Promise<string> {
  const consent = await visit(jar, authorizeUrl);
  let callback = consent.location;
  if (consent.status === 200 && consent.body.includes('<form')) {
    const form = parseFormPost(consent.body);
    const posted = await visit(jar, form.action, { form: form.fields });
    expect(posted.status, posted.body).toBe(303);
    callback = posted.location;
  }
  expect(callback, `the provider answered ${consent.status}: ${consent.body.slice(0, 300)}`).toBeDefined();
  return callback!;
}

/** Opens the app's callback URL with the jar and returns where the app sent the browser. */
export async function openCallback(jar: CookieJar, callbackUrl: string, frontEndUrl: string): Promise<Landing> {
  const back = await visit(jar, callbackUrl);
  expect(back.status, back.body).toBe(302);
  expect(back.location!.startsWith(`${frontEndUrl}/auth/callback?`), back.location).toBe(true);
  return landingOf(back.location!);
}

/** Follows a sign-in from the provider's authorize URL back to the front end. */
export async function fromProviderToApp(jar: CookieJar, authorizeUrl: string, appUrl: string, frontEndUrl: string): Promise<Landing> {
  const callback = await toCallback(jar, authorizeUrl);
  // (The front end may be the app itself, as with the built-in pages: its page is /auth/callback.)
  if (callback.startsWith(`${frontEndUrl}/auth/callback?`)) return landingOf(callback);
  expect(callback.startsWith(appUrl), `callback ${callback} is not on the app`).toBe(true);
  return openCallback(jar, callback, frontEndUrl);
}

/** The whole flow from `GET /api/auth/{provider}` to the front end's callback page. */
export async function signIn(options: { appUrl: string; frontEndUrl: string; provider: string; jar?: CookieJar; query?: Record<string, string>; startUrl?: string }): Promise<Landing & { jar: CookieJar; authorizeUrl?: string }> {
  const jar = options.jar ?? new CookieJar();
  const start = await visit(jar, options.startUrl ?? `${options.appUrl}/api/auth/${options.provider}?${new URLSearchParams(options.query ?? {})}`);
  expect(start.status, start.body).toBe(302);
  if (start.location!.startsWith(`${options.frontEndUrl}/auth/callback?`)) return { ...landingOf(start.location!), jar };
  return { ...(await fromProviderToApp(jar, start.location!, options.appUrl, options.frontEndUrl)), jar, authorizeUrl: start.location };
}

/**
 * Posts the landing's one-time code to /api/auth/exchange, with the cookies of the browser that
 * went through the callback (the code is bound to its cookie) and, for a flow started with a code
 * challenge, the verifier.
 */
export function exchange(appUrl: string, code: string, jar?: CookieJar, codeVerifier?: string) {
  const cookie = jar?.header(appUrl);
  return call(appUrl, '/api/auth/exchange', { json: { code, ...(codeVerifier ? { codeVerifier } : {}) }, headers: cookie ? { cookie } : {} });
}

/** POST /api/auth/{provider}/link as a signed-in front end in the browser `jar`: the answer's cookie lands in that jar. */
export async function requestLink(appUrl: string, provider: string, token: string, jar: CookieJar, body: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const target = `${appUrl}/api/auth/${provider}/link`;
  const response = await fetch(target, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  jar.capture(target, response);
  return { status: response.status, body: await response.json() };
}
