const FALLBACK = '/';
const PROBE_ORIGIN = 'http://return-to.invalid';

/**
 * `returnTo` is taken only as a relative path of the front end: one leading `/`, not `//`, no
 * scheme, no backslash, no control characters. Anything else becomes `/`, so the sign-in can never
 * send the browser to another site.
 */
export function safeReturnTo(value: unknown): string {
  if (typeof value !== 'string' || value.length > 512) return FALLBACK;
  if (!value.startsWith('/') || value.startsWith('//') || value.includes('\\') || /\p{Cc}/u.test(value)) return FALLBACK;
  try {
    return new URL(value, PROBE_ORIGIN).origin === PROBE_ORIGIN ? value : FALLBACK;
  } catch {
    return FALLBACK;
  }
}
