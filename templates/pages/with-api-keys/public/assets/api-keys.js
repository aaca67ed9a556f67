/**
 * An API key section: the account page's (the user's own keys) and an organization page's (its
 * service accounts). It lists the keys with their scopes and dates, each with Delete, and makes a
 * new one from the section's form. The new key is shown once, with a Copy button: the server keeps
 * only its hash and first characters, so nothing can show it again. Making a key needs a recent
 * sign-in; the API's REAUTH_REQUIRED comes with a "Sign in again" button (ui.js).
 */
import { api } from './api.js';
import { actionButton, el, onClick, onSubmit, showError, showNotice } from './ui.js';

const day = (iso) => new Date(iso).toLocaleDateString();

/** What a key's row says under its name: how it starts, what it may do, and its dates. */
function describe(key) {
  const facts = [`${key.start}…`, key.scopes.join(', ')];
  if (key.role) facts.push(`acts as ${key.role}`);
  const maker = key.organizationId ? (key.createdBy ? key.createdBy.name : 'a deleted account') : null;
  facts.push(`created ${day(key.createdAt)}${maker ? ` by ${maker}` : ''}`);
  facts.push(key.lastUsedAt ? `last used ${new Date(key.lastUsedAt).toLocaleString()}` : 'never used');
  if (!key.expiresAt) facts.push('does not expire');
  else facts.push(`${Date.parse(key.expiresAt) > Date.now() ? 'expires' : 'expired'} ${day(key.expiresAt)}`);
  return facts.join(' · ');
}

/**
 * Runs the key section `section` against the API's key routes at `path` (list and create there,
 * delete at `path/:id`). The section holds a list (.list), an alert and a notice of its own, the
 * panel that shows a new key ([data-new-key]) and the form that makes one. Returns `show`, which
 * loads the list again.
 */
export function manageKeys(section, path) {
  const alert = section.querySelector(':scope > [role="alert"]');
  const notice = section.querySelector(':scope > [role="status"]');
  const list = section.querySelector('.list');
  const form = section.querySelector('form');
  const panel = section.querySelector('[data-new-key]');
  const keyField = panel.querySelector('input');

  async function load() {
    const { apiKeys } = await api(`${path}?limit=200`);
    list.replaceChildren(
      ...apiKeys.map((key) => {
        const item = el('li');
        const text = el('span');
        text.append(el('strong', key.name), document.createElement('br'), el('span', describe(key), 'muted'));
        const remove = actionButton(
          'Delete',
          alert,
          async () => {
            await api(`${path}/${encodeURIComponent(key.id)}`, { method: 'DELETE' });
            showNotice(notice, `Deleted ${key.name}. It stops working at once.`);
            await load();
          },
          { name: `Delete ${key.name}`, className: 'danger' },
        );
        item.append(text, remove);
        return item;
      }),
    );
    if (apiKeys.length === 0) list.append(el('li', 'No API keys yet.', 'muted'));
  }

  function forget() {
    keyField.value = '';
    panel.hidden = true;
    panel.querySelector('[role="status"]').replaceChildren();
  }

  onSubmit(form, async ({ name, role, expiresInDays }) => {
    notice.replaceChildren();
    forget();
    const scopes = [...form.querySelectorAll('input[name="scopes"]:checked')].map((box) => box.value);
    if (scopes.length === 0) throw new Error('Choose at least one scope.');
    const body = { name, scopes, ...(role ? { role } : {}), ...(expiresInDays ? { expiresInDays: Number(expiresInDays) } : {}) };
    const { apiKey, key } = await api(path, { body });
    form.reset();
    keyField.value = key;
    panel.querySelector('[data-field="name"]').textContent = apiKey.name;
    panel.hidden = false;
    keyField.focus();
    keyField.select();
    await load();
  });

  const panelAlert = panel.querySelector('[role="alert"]');
  onClick(panel.querySelector('[data-action="copy"]'), panelAlert, async () => {
    try {
      await navigator.clipboard.writeText(keyField.value);
    } catch {
      keyField.select();
      throw new Error('This browser did not let the page copy. The key is selected: copy it yourself.');
    }
    showNotice(panel.querySelector('[role="status"]'), 'Copied to the clipboard.');
  });
  onClick(panel.querySelector('[data-action="done"]'), panelAlert, async () => forget());

  return { show: () => load().catch((error) => showError(alert, error)) };
}
