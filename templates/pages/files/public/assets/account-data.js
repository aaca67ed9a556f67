/**
 * The account page's "Your data": download everything the app keeps about you (the export), and
 * delete the account, confirmed by typing its address. Both need a recent sign-in: an older session
 * gets REAUTH_REQUIRED, with a button to sign in again.
 */
import { api } from './api.js';
import { forgetSession } from './session.js';
import { onClick, onSubmit } from './ui.js';

const section = document.getElementById('account-data');
const exportButton = document.getElementById('export-account');

onClick(exportButton, section.querySelector('[role="alert"]'), async () => {
  const account = await api('/api/auth/account/export');
  const file = new Blob([`${JSON.stringify(account, null, 2)}\n`], { type: 'application/json' });
  const link = document.createElement('a');
  link.href = URL.createObjectURL(file);
  link.download = `account-${account.exportedAt.slice(0, 10)}.json`;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
});

onSubmit(document.getElementById('delete-account'), async ({ confirm }) => {
  await api('/api/auth/account', { method: 'DELETE', body: { confirm } });
  forgetSession();
  location.replace('/');
});
