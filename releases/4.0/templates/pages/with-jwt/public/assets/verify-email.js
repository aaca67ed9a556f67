/**
 * /verify-email?token=: confirms the address for the signed-in owner of the link. The API takes
 * the link only from its owner's session (so a mail someone else triggered verifies nothing):
 * without a session this tab signs in first and comes back here.
 */
import { api, signedIn } from './api.js';
import { hideQuery, signInFirst } from './session.js';
import { showError } from './ui.js';

const token = new URLSearchParams(location.search).get('token');
const status = document.getElementById('verify-status');

if (!token) {
  status.textContent = 'This page needs the link from the verification mail.';
} else if (!(await signedIn())) {
  status.textContent = 'Sign in to confirm that this address is yours.';
  signInFirst();
} else {
  try {
    const { user } = await api('/api/auth/email/verify', { body: { token } });
    hideQuery();
    status.textContent = `${user.email} is verified. Thank you.`;
    document.getElementById('to-account').hidden = false;
  } catch (error) {
    status.textContent = 'The address could not be verified.';
    showError(document.getElementById('page-alert'), error);
  }
}
