/**
 * While this tab acts as another user for an admin (see admin.js), every page that loads this
 * script says so in a banner at the top, with a button that ends the impersonation and takes the
 * tab back to the admin's own session and page.
 */
import { api, refreshSession } from './api.js';
import { impersonating, leaveImpersonation } from './session.js';
import { el, showError } from './ui.js';

async function stop(returnTo) {
  try {
    await api('/api/admin/impersonation/stop', { method: 'POST' });
  } catch {
    // It had already ended (timed out, or the admin's session ended): nothing left to stop.
  }
  leaveImpersonation();
  // The refresh cookie is the admin's own: it gets this tab the admin's access token again.
  await refreshSession();
  location.replace(returnTo);
}

const returnTo = impersonating();
if (returnTo) {
  const banner = el('div', '', 'impersonation');
  banner.setAttribute('role', 'status');
  banner.id = 'impersonation-banner';
  document.body.prepend(banner);
  try {
    const { user, impersonatedBy } = await api('/api/auth/me');
    const button = el('button', 'Stop acting as this user', 'secondary');
    button.type = 'button';
    button.addEventListener('click', () => {
      button.disabled = true;
      stop(returnTo);
    });
    banner.append(el('span', `You are acting as ${user.email}${impersonatedBy ? ` (as admin ${impersonatedBy.email})` : ''}.`), button);
  } catch (error) {
    showError(banner, error);
  }
}
