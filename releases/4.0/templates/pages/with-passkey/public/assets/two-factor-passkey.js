/** The passkey choice on the two-factor step, offered when the sign-in's methods include it. */
import { api } from './api.js';
import { finishSignIn, pendingChallenge } from './session.js';
import { onClick } from './ui.js';
import { getPasskey, passkeysSupported } from './webauthn.js';

const challenge = pendingChallenge();
const choice = document.getElementById('passkey-choice');

if (challenge?.methods.includes('passkey') && passkeysSupported()) {
  choice.hidden = false;
  onClick(document.getElementById('passkey-verify'), choice.querySelector('[role="alert"]'), async () => {
    const options = await api('/api/auth/2fa/passkey/options', { body: { mfaToken: challenge.mfaToken } });
    const response = await getPasskey(options);
    finishSignIn(await api('/api/auth/2fa/passkey/verify', { body: { mfaToken: challenge.mfaToken, response } }));
  });
}
