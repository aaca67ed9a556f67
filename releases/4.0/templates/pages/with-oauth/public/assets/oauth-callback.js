/**
 * /auth/callback: where the API sends the browser after a provider. ?code= is a one-time code,
 * posted to /api/auth/exchange for this app's token (the callback bound it to this browser with a
 * cookie that the same-origin request carries); ?error= is a failure code, said in words.
 */
import { api } from './api.js';
import { finishSignIn, hideQuery, safePath } from './session.js';
import { showError } from './ui.js';

/** The failure codes of an OAuth sign-in, as the person should read them. */
const FAILURES = {
  access_denied: 'You cancelled the sign-in at the provider. Nothing was changed.',
  invalid_state: 'This sign-in expired or was started in another browser. Start again from the sign-in page.',
  account_exists:
    'An account with this email address already exists, and the provider does not confirm that the address is yours. Sign in another way, then link this provider from your account page.',
  email_required: 'The provider did not share an email address. Allow access to your email address there, or sign in another way.',
  identity_in_use: 'This provider account is already linked to another user. Sign in with it, or link a different one.',
  provider_error: 'The provider could not complete the sign-in. Try again in a moment.',
};

const params = new URLSearchParams(location.search);
const code = params.get('code');
const error = params.get('error');
const returnTo = safePath(params.get('returnTo') ?? undefined);
const alert = document.getElementById('page-alert');
hideQuery();

if (code) {
  try {
    finishSignIn(await api('/api/auth/exchange', { body: { code } }), returnTo && returnTo !== '/' ? returnTo : '/account');
  } catch (failure) {
    document.getElementById('callback-title').textContent = 'Sign-in failed';
    showError(alert, failure);
  }
} else {
  document.getElementById('callback-title').textContent = 'Sign-in failed';
  // Only the codes above have their own words: any other value (even __proto__) gets the generic one.
  alert.textContent = Object.hasOwn(FAILURES, error ?? '') ? FAILURES[error] : 'The sign-in did not complete. Start again from the sign-in page.';
}
