/**
 * The account page's passkeys: each with Rename and Remove, and Add a passkey. Adding and removing
 * need a recent sign-in and a verified email; the API's answers say so when they are missing.
 */
import { onUser } from './account.js';
import { api } from './api.js';
import { actionButton, el, onSubmit, showError, showNotice } from './ui.js';
import { createPasskey, passkeysSupported } from './webauthn.js';

const section = document.getElementById('passkeys');
const alert = section.querySelector('[role="alert"]');
const notice = section.querySelector('[role="status"]');
const list = document.getElementById('passkey-list');
const renameForm = document.getElementById('passkey-rename');

const when = (iso) => (iso ? new Date(iso).toLocaleString() : 'never');

async function show() {
  const { passkeys } = await api('/api/auth/passkeys');
  list.replaceChildren(
    ...passkeys.map((passkey) => {
      const item = el('li');
      const label = el('span', passkey.name);
      const facts = el('span', ` · added ${when(passkey.createdAt)} · last used ${when(passkey.lastUsedAt)}${passkey.backedUp ? ' · synced' : ''}`, 'muted');
      const rename = actionButton(
        'Rename',
        alert,
        async () => {
          renameForm.hidden = false;
          renameForm.elements.id.value = passkey.id;
          renameForm.elements.name.value = passkey.name;
          renameForm.elements.name.focus();
        },
        { name: `Rename ${passkey.name}` },
      );
      const remove = actionButton(
        'Remove',
        alert,
        async () => {
          await api(`/api/auth/passkeys/${encodeURIComponent(passkey.id)}`, { method: 'DELETE' });
          showNotice(notice, `Removed ${passkey.name}.`);
          await show();
        },
        { name: `Remove ${passkey.name}`, className: 'danger' },
      );
      item.append(label, facts, rename, remove);
      return item;
    }),
  );
  if (passkeys.length === 0) list.append(el('li', 'No passkey yet.', 'muted'));
}

onSubmit(renameForm, async ({ id, name }) => {
  await api(`/api/auth/passkeys/${encodeURIComponent(id)}`, { method: 'PATCH', body: { name } });
  renameForm.hidden = true;
  showNotice(notice, `Renamed to ${name.trim()}.`);
  await show();
});

const addButton = document.getElementById('passkey-add');
if (!passkeysSupported()) {
  addButton.disabled = true;
  showNotice(notice, 'This browser cannot make passkeys.');
}
onSubmit(document.getElementById('passkey-add-form'), async ({ name }) => {
  notice.replaceChildren();
  const options = await api('/api/auth/passkey/register/options', { body: {} });
  const response = await createPasskey(options);
  const { passkey } = await api('/api/auth/passkey/register/verify', { body: { response, ...(name ? { name } : {}) } });
  document.getElementById('passkey-name').value = '';
  showNotice(notice, `Added ${passkey.name}. You can sign in with it now.`);
  await show();
});

onUser(() => show().catch((error) => showError(alert, error)));
