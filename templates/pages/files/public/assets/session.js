/**
 * The signed-in session of this browser tab. The access token lives in sessionStorage: it ends
 * with the tab, other tabs and sites cannot read it, and it never appears in a URL.
 */

const TOKEN = 'accessToken';
const CHALLENGE = 'mfaChallenge';
const RETURN_TO = 'returnTo';

/** The access token of this tab, or undefined when signed out. */
export function accessToken() {
  return sessionStorage.getItem(TOKEN) ?? undefined;
}

/** Keeps the access token of a token response for this tab. */
export function keepToken(token) {
  sessionStorage.setItem(TOKEN, token);
  sessionStorage.removeItem(CHALLENGE);
}

export function forgetSession() {
  sessionStorage.removeItem(TOKEN);
  sessionStorage.removeItem(CHALLENGE);
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
  keepToken(answer.token);
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
