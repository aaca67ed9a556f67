/**
 * The sign-in page (/). Each way to sign in has its own section and script; this one sends a tab
 * that is already signed in to its account, and says so when the server offers no way at all.
 */
import { api, providers, signedIn } from './api.js';
import { forgetSession } from './session.js';
import { showError } from './ui.js';

const alert = document.getElementById('page-alert');

if (await signedIn()) {
  try {
    await api('/api/auth/me');
    location.replace('/account');
  } catch {
    forgetSession();
  }
}

try {
  const { methods, oauth } = await providers();
  if (methods.length === 0 && !oauth.some((provider) => provider.configured)) {
    alert.textContent = 'This server offers no way to sign in yet: configure a sign-in method first.';
  }
} catch (error) {
  showError(alert, error);
}
