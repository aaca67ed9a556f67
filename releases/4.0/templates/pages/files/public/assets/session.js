/**
 * The signed-in session of this browser tab. The access token lives in sessionStorage: it ends
 * with the tab, other tabs and sites cannot read it, and it never appears in a URL. The refresh
 * token is an HttpOnly cookie that no script can read (see api.js): a new tab, or a tab whose
 * access token is about to expire, gets a new access token with it.
 */

const TOKEN = 'accessToken';
const REFRESH_AT = 'accessTokenRefreshAt';
const CHALLENGE = 'mfaChallenge';
const RETURN_TO = 'returnTo';
/** Not a secret: only whether it is worth asking for a refresh when a new tab opens. */
const SIGNED_IN = 'signedIn';

/** The access token of this tab, or undefined when signed out. */
export function accessToken() {
  return sessionStorage.getItem(TOKEN) ?? undefined;
}

/** When the access token of this tab is due for a refresh (ms since the epoch), or undefined if unknown. */
export function accessTokenRefreshAt() {
  return Number(sessionStorage.getItem(REFRESH_AT)) || undefined;
}

/**
 * Keeps the access token of a token response for this tab, due for a refresh shortly before it
 * expires: a minute early, or a quarter of its life for short-lived tokens.
 */
export function keepToken(answer) {
  const lifetimeMs = answer.expiresIn * 1000;
  sessionStorage.setItem(TOKEN, answer.token);
  sessionStorage.setItem(REFRESH_AT, String(Date.now() + lifetimeMs - Math.min(60_000, lifetimeMs / 4)));
  sessionStorage.removeItem(CHALLENGE);
  localStorage.setItem(SIGNED_IN, '1');
}

export function forgetSession() {
  sessionStorage.removeItem(TOKEN);
  sessionStorage.removeItem(REFRESH_AT);
  sessionStorage.removeItem(CHALLENGE);
  localStorage.removeItem(SIGNED_IN);
}

/** Whether this browser signed in and has not signed out since (the session may still have ended). */
export function mayHaveSession() {
  return localStorage.getItem(SIGNED_IN) === '1';
}

/** A path of this site only: one leading slash, no scheme, no backslash, no control characters. */
export function safePath(value) {
  return typeof value === 'string' && /^\/(?![/\\])[^\\\u0000-\u001f\u007f]*$/.test(value) ? value : undefined;
}

/** Goes to the sign-in page, and back to `returnTo` (this page by default) once signed in. */
export function signInFirst(returnTo = `${location.pathname}${location.search}`) {
  sessionStorage.setItem(RETURN_TO, safePath(returnTo) ?? '/account');
  location.assign('/');
}

/** Where a finished sign-in goes: the page that asked for it, else `fallback`. */
function takeReturnTo(fallback) {
  const returnTo = safePath(sessionStorage.getItem(RETURN_TO));
  sessionStorage.removeItem(RETURN_TO);
  return returnTo ?? fallback;
}

/**
 * Ends a sign-in with the API's answer: a token response keeps the token and moves on; the
 * two-factor answer (mfaRequired) keeps the challenge and asks for the code first.
 */
export function finishSignIn(answer, fallback = '/account') {
  if (answer.mfaRequired) {
    sessionStorage.setItem(CHALLENGE, JSON.stringify({ mfaToken: answer.mfaToken, methods: answer.methods }));
    location.replace('/two-factor');
    return;
  }
  keepToken(answer);
  location.replace(takeReturnTo(fallback));
}

/** The pending two-factor challenge ({ mfaToken, methods }), or undefined. */
export function pendingChallenge() {
  const stored = sessionStorage.getItem(CHALLENGE);
  return stored ? JSON.parse(stored) : undefined;
}

/** Takes a one-time token out of the address bar (and so out of history) once the page has read it. */
export function hideQuery() {
  history.replaceState(null, '', location.pathname);
}
