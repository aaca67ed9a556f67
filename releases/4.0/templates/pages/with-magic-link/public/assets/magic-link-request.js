/** Asking for a sign-in link by email, on the sign-in page. */
import { api, providers } from './api.js';
import { onSubmit, showNotice } from './ui.js';

const form = document.getElementById('magic-link-form');
onSubmit(form, async ({ email }) => {
  await api('/api/auth/magic-link/send', { body: { email } });
  showNotice(form.querySelector('[role="status"]'), `Check your inbox: if ${email} may sign in here, a link is on its way. It works once.`);
});

const { methods } = await providers();
document.querySelector('[data-method="magic_link"]').hidden = !methods.includes('magic_link');
