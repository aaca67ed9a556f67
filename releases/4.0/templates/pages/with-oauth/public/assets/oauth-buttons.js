/**
 * A button per configured OAuth provider, on the sign-in page. Each is a plain link to
 * GET /api/auth/{provider}; the provider sends the browser back to /auth/callback.
 */
import { providers } from './api.js';
import { el } from './ui.js';

const { oauth } = await providers();
const configured = oauth.filter((provider) => provider.configured);
const buttons = document.getElementById('oauth-buttons');
for (const provider of configured) {
  const link = el('a', `Continue with ${provider.name}`, 'button secondary');
  link.href = `/api/auth/${encodeURIComponent(provider.id)}`;
  buttons.append(link);
}
document.querySelector('[data-method="oauth"]').hidden = configured.length === 0;
