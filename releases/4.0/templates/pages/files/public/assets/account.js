/**
 * The account page (/account): who is signed in, and signing out here or everywhere. The other
 * sections of the page (password, two-factor, linked identities) have scripts of their own that
 * call `onUser` to hear about the user.
 */
import { api, signedIn } from './api.js';
import { forgetSession, signInFirst } from './session.js';
import { fill, onClick, showError } from './ui.js';

const listeners = [];
let current;

/** Calls `listener(user)` with the signed-in user, and again whenever it changes. */
export function onUser(listener) {
  listeners.push(listener);
  if (current) listener(current);
}

/** Shows a user object of the API and tells every section. */
export function showUser(user) {
  current = user;
  fill(document.getElementById('profile'), {
    email: user.email,
    name: user.name ?? '—',
    emailVerified: user.emailVerified ? 'Verified' : 'Not verified yet',
  });
  for (const listener of listeners) listener(user);
}

/** Loads the signed-in user again, after a change whose answer does not carry it. */
export async function reloadUser() {
  showUser((await api('/api/auth/me')).user);
}

async function signOut(path) {
  await api(path, { method: 'POST' });
  forgetSession();
  location.replace('/');
}

const alert = document.getElementById('page-alert');
onClick(document.getElementById('sign-out'), alert, () => signOut('/api/auth/logout'));
onClick(document.getElementById('sign-out-everywhere'), alert, () => signOut('/api/auth/logout-all'));

if (await signedIn()) {
  try {
    await reloadUser();
  } catch (error) {
    // The session ended elsewhere (signed out from another device, a password change).
    if (error.code === 'UNAUTHENTICATED') signInFirst();
    else showError(alert, error);
  }
} else {
  signInFirst();
}
