/**
 * The account page's linked sign-in accounts: each identity with Unlink, and Link for every
 * configured provider not linked yet. Linking leaves for the provider and comes back through
 * /auth/callback; both need a recent sign-in.
 */
import { onUser } from './account.js';
import { api, providers } from './api.js';
import { actionButton, el, showError } from './ui.js';

const section = document.getElementById('identities').closest('section');
const alert = section.querySelector('[role="alert"]');

async function show() {
  const [{ identities }, { oauth }] = await Promise.all([api('/api/auth/identities'), providers()]);
  const nameOf = (id) => oauth.find((provider) => provider.id === id)?.name ?? id;
  const list = document.getElementById('identities');
  list.replaceChildren(
    ...identities.map((identity) => {
      const item = el('li');
      const label = el('span', `${nameOf(identity.provider)}${identity.email ? ` · ${identity.email}` : ''}`);
      const unlink = actionButton(
        'Unlink',
        alert,
        async () => {
          await api(`/api/auth/identities/${encodeURIComponent(identity.id)}`, { method: 'DELETE' });
          await show();
        },
        { name: `Unlink ${nameOf(identity.provider)}` },
      );
      item.append(label, unlink);
      return item;
    }),
  );
  if (identities.length === 0) list.append(el('li', 'No provider is linked yet.', 'muted'));
  const linked = new Set(identities.map((identity) => identity.provider));
  document.getElementById('link-buttons').replaceChildren(
    ...oauth
      .filter((provider) => provider.configured && !linked.has(provider.id))
      .map((provider) =>
        actionButton(`Link ${provider.name}`, alert, async () => {
          const { url } = await api(`/api/auth/${encodeURIComponent(provider.id)}/link`, { body: { returnTo: '/account' } });
          location.assign(url);
        }),
      ),
  );
}

onUser(() => show().catch((error) => showError(alert, error)));
