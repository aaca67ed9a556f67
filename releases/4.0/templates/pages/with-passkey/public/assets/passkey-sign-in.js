/**
 * "Sign in with a passkey" on the sign-in page, and the browser's passkey autofill in the email
 * field where it has one. A passkey sign-in is complete: it goes straight to the account.
 */
import { api, providers } from './api.js';
import { finishSignIn } from './session.js';
import { onClick, showError } from './ui.js';
import { autofillAvailable, getPasskey, passkeysSupported } from './webauthn.js';

const section = document.querySelector('[data-method="passkey"]');
const alert = section.querySelector('[role="alert"]');

async function signInWithPasskey(request) {
  const options = await api('/api/auth/passkey/login/options', { body: {} });
  const response = await getPasskey(options, request);
  finishSignIn(await api('/api/auth/passkey/login/verify', { body: { response } }));
}

/** The pending autofill request: the button cancels it first, as a page may ask for one passkey at a time. */
let autofill;

async function offerAutofill() {
  if (!(await autofillAvailable())) return;
  const controller = new AbortController();
  const pending = signInWithPasskey({ mediation: 'conditional', signal: controller.signal }).catch((error) => {
    if (error.name !== 'AbortError') showError(alert, error);
  });
  autofill = { controller, pending };
}

const { methods } = await providers();
section.hidden = !methods.includes('passkey') || !passkeysSupported();

if (!section.hidden) {
  onClick(document.getElementById('passkey-sign-in'), alert, async () => {
    if (autofill) {
      autofill.controller.abort();
      await autofill.pending;
      autofill = undefined;
    }
    try {
      await signInWithPasskey({});
    } catch (error) {
      // Still on this page: offer the autofill again, then show what went wrong.
      offerAutofill();
      throw error;
    }
  });
  offerAutofill();
}
