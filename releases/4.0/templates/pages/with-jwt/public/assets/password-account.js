/** The account page's password sections: verifying the email address, and changing the password. */
import { api } from './api.js';
import { onUser, showUser } from './account.js';
import { keepToken } from './session.js';
import { onClick, onSubmit, showNotice } from './ui.js';

const verify = document.getElementById('verify-email');
onUser((user) => (verify.hidden = user.emailVerified));
onClick(verify.querySelector('button'), verify.querySelector('[role="alert"]'), async () => {
  await api('/api/auth/email/verify/send', { method: 'POST' });
  showNotice(verify.querySelector('[role="status"]'), 'Sent. Open the link in the mail to finish; it asks you to sign in when this browser has no session there.');
});

const form = document.getElementById('password-form');
onSubmit(form, async ({ currentPassword, newPassword }) => {
  const answer = await api('/api/auth/password/change', { body: { currentPassword, newPassword } });
  // The answer carries a new token; every earlier one, on every device, no longer works.
  keepToken(answer);
  form.reset();
  showUser(answer.user);
  showNotice(form.querySelector('[role="status"]'), 'Password changed. You were signed out everywhere else.');
});
