/** Signing in and registering with email and password, on the sign-in page. */
import { api, providers } from './api.js';
import { finishSignIn } from './session.js';
import { onSubmit } from './ui.js';

onSubmit(document.getElementById('sign-in-form'), async ({ email, password }) => {
  finishSignIn(await api('/api/auth/login', { body: { email, password } }));
});

onSubmit(document.getElementById('register-form'), async ({ name, email, password }) => {
  finishSignIn(await api('/api/auth/register', { body: { email, password, ...(name ? { name } : {}) } }));
});

const { methods } = await providers();
document.querySelector('[data-method="password"]').hidden = !methods.includes('password');
