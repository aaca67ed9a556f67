/**
 * /reset-password: without a token, asks for a reset link; with the mailed ?token=, sets the new
 * password and signs in (through the two-factor step when the account has it on).
 */
import { api } from './api.js';
import { finishSignIn, hideQuery } from './session.js';
import { onSubmit, showNotice } from './ui.js';

const token = new URLSearchParams(location.search).get('token');
const request = document.querySelector('#request-reset form');
const choose = document.querySelector('#choose-password form');

onSubmit(request, async ({ email }) => {
  await api('/api/auth/password/forgot', { body: { email } });
  showNotice(request.querySelector('[role="status"]'), `If ${email} has an account, a reset link is on its way. It works once.`);
});

onSubmit(choose, async ({ password }) => {
  finishSignIn(await api('/api/auth/password/reset', { body: { token, password } }));
});

if (token) {
  hideQuery();
  document.getElementById('request-reset').hidden = true;
  document.getElementById('choose-password').hidden = false;
}
