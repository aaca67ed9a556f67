/**
 * /two-factor: the second step of any sign-in that answered mfaRequired. The challenge
 * ({ mfaToken, methods }) waits in this tab's sessionStorage; a code or a recovery code ends it.
 */
import { api } from './api.js';
import { finishSignIn, pendingChallenge } from './session.js';
import { onSubmit } from './ui.js';

const challenge = pendingChallenge();
const codeForm = document.getElementById('code-form');
const recoveryForm = document.getElementById('recovery-form');
const switcher = document.getElementById('switch-form');

if (!challenge) {
  location.replace('/');
} else {
  onSubmit(codeForm, async ({ code }) => {
    finishSignIn(await api('/api/auth/2fa/verify', { body: { mfaToken: challenge.mfaToken, code } }));
  });
  onSubmit(recoveryForm, async ({ recoveryCode }) => {
    finishSignIn(await api('/api/auth/2fa/verify', { body: { mfaToken: challenge.mfaToken, recoveryCode } }));
  });
  switcher.hidden = !challenge.methods.includes('recovery_code');
  switcher.addEventListener('click', () => {
    const useRecovery = recoveryForm.hidden;
    recoveryForm.hidden = !useRecovery;
    codeForm.hidden = useRecovery;
    switcher.textContent = useRecovery ? 'Use a code from your app instead' : 'Use a recovery code instead';
    (useRecovery ? recoveryForm : codeForm).querySelector('input').focus();
  });
}
