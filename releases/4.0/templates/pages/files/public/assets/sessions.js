/**
 * The account page's device list: every live session of the user (this one marked), each of the
 * others with a button that ends it, and one that ends them all. An ended session's tokens stop
 * working on its next request.
 */
import { onUser } from './account.js';
import { api } from './api.js';
import { actionButton, el, onClick, showError } from './ui.js';

const list = document.getElementById('sessions');
const section = list.closest('section');
const alert = section.querySelector('[role="alert"]');

/** The user agent as the browser sent it at sign-in, shortened for the list. */
function device(session) {
  const agent = session.userAgent ?? 'Unknown device';
  return agent.length > 80 ? `${agent.slice(0, 77)}…` : agent;
}

function describe(session) {
  const where = session.ip ? ` · ${session.ip}` : '';
  const method = session.method.replace(/_/g, ' ');
  return `Signed in ${new Date(session.createdAt).toLocaleString()} with ${method}${where} · last active ${new Date(session.lastUsedAt).toLocaleString()}`;
}

async function show() {
  const { sessions } = await api('/api/auth/sessions');
  list.replaceChildren(
    ...sessions.map((session) => {
      const item = el('li');
      const text = el('span');
      text.append(el('strong', device(session)), document.createElement('br'), el('span', describe(session), 'muted'));
      item.append(text);
      if (session.current) {
        item.append(el('span', 'This device', 'muted'));
      } else {
        item.append(
          actionButton(
            'Sign out',
            alert,
            async () => {
              await api(`/api/auth/sessions/${encodeURIComponent(session.id)}`, { method: 'DELETE' });
              await show();
            },
            { name: `Sign out ${device(session)}` },
          ),
        );
      }
      return item;
    }),
  );
  document.getElementById('end-other-sessions').hidden = sessions.length < 2;
}

onClick(document.getElementById('end-other-sessions'), alert, async () => {
  await api('/api/auth/sessions/revoke-others', { method: 'POST' });
  await show();
});

onUser(() => show().catch((error) => showError(alert, error)));
