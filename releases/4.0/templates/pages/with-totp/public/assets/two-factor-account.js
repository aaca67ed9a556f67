/**
 * The account page's two-factor section: set up (QR code and key, then a first code turns it on
 * and shows the recovery codes once), new recovery codes, and turning it off. Each step needs a
 * recent sign-in; the API's REAUTH_REQUIRED comes with a "Sign in again" button.
 */
import { onUser, reloadUser } from './account.js';
import { api } from './api.js';
import { forgetSession, signInFirst } from './session.js';
import { el, onClick, onSubmit } from './ui.js';

const section = document.getElementById('two-factor');
const intro = section.querySelector('[data-when="off"]');
const enableForm = document.getElementById('two-factor-enable');
const manageForm = document.getElementById('two-factor-manage');
const codes = document.getElementById('recovery-codes');

function showRecoveryCodes(recoveryCodes) {
  codes.querySelector('ul').replaceChildren(...recoveryCodes.map((code) => el('li', code)));
  codes.hidden = false;
}

onUser((user) => {
  intro.hidden = user.twoFactorEnabled;
  manageForm.hidden = !user.twoFactorEnabled;
  if (user.twoFactorEnabled) enableForm.hidden = true;
});

onClick(document.getElementById('two-factor-start'), section.querySelector('[role="alert"]'), async () => {
  const { secret, qrCodeDataUrl } = await api('/api/auth/2fa/setup', { method: 'POST' });
  document.getElementById('two-factor-qr').src = qrCodeDataUrl;
  document.getElementById('two-factor-secret').textContent = secret;
  intro.hidden = true;
  enableForm.hidden = false;
  enableForm.querySelector('input').focus();
});

onSubmit(enableForm, async ({ code }) => {
  const { recoveryCodes } = await api('/api/auth/2fa/enable', { body: { code } });
  enableForm.reset();
  await reloadUser();
  showRecoveryCodes(recoveryCodes);
});

onSubmit(manageForm, async ({ code, action }) => {
  if (action === 'disable') {
    // Turning it off signs out every session, this one included.
    await api('/api/auth/2fa/disable', { body: { code } });
    forgetSession();
    signInFirst('/account');
  } else {
    const { recoveryCodes } = await api('/api/auth/2fa/recovery-codes', { body: { code } });
    showRecoveryCodes(recoveryCodes);
  }
  manageForm.reset();
});
