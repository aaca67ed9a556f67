/**
 * /magic-link?token=: signs in with the mailed link once the person clicks Continue, by posting the
 * token. The click keeps mail scanners, which open links but do not press buttons, from using up
 * the link.
 */
import { api } from './api.js';
import { finishSignIn, hideQuery } from './session.js';
import { onSubmit } from './ui.js';

const token = new URLSearchParams(location.search).get('token');
const form = document.getElementById('magic-link-form');

if (token) {
  hideQuery();
  onSubmit(form, async () => {
    finishSignIn(await api('/api/auth/magic-link/verify', { body: { token } }));
  });
} else {
  document.getElementById('magic-link-status').textContent = 'This page needs the link from your sign-in mail.';
  form.querySelector('button').hidden = true;
}
