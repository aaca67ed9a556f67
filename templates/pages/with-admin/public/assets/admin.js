/**
 * /admin, for the app's admins: find users, then ban or unban one, end their sessions, or act as
 * them (an impersonation: this tab then uses their session until "Stop" in the banner). Every
 * action is a call to /api/admin, which refuses anyone but an admin.
 */
import { api, signedIn } from './api.js';
import { keepImpersonation, signInFirst } from './session.js';
import { el, fill, onClick, onSubmit, showError, showNotice } from './ui.js';

const alert = document.getElementById('page-alert');
const list = document.getElementById('users');
const more = document.getElementById('more-users');
const userCard = document.getElementById('user');
const userAlert = document.getElementById('user-alert');
const userNotice = document.getElementById('user-notice');
let search = new URLSearchParams();
let nextCursor = null;
let selected;

function status(user) {
  if (!user.banned) return 'Active';
  return user.banExpiresAt ? `Banned until ${new Date(user.banExpiresAt).toLocaleString()}: ${user.banReason}` : `Banned: ${user.banReason}`;
}

function row(user) {
  const item = el('li');
  const text = el('span');
  text.append(el('strong', user.email), document.createElement('br'), el('span', `${user.name ?? '—'} · ${user.role} · ${status(user)}`, 'muted'));
  const manage = el('button', 'Manage', 'secondary');
  manage.type = 'button';
  manage.setAttribute('aria-label', `Manage ${user.email}`);
  onClick(manage, alert, () => showUser(user.id));
  item.append(text, manage);
  return item;
}

async function showUsers(append = false) {
  const query = new URLSearchParams(search);
  query.set('limit', '50');
  if (append && nextCursor) query.set('cursor', nextCursor);
  const page = await api(`/api/admin/users?${query}`);
  if (!append) list.replaceChildren();
  list.append(...page.users.map(row));
  if (!append && page.users.length === 0) list.append(el('li', 'No user matches.', 'muted'));
  nextCursor = page.nextCursor;
  more.hidden = !nextCursor;
}

async function showUser(id) {
  const { user, sessions } = await api(`/api/admin/users/${encodeURIComponent(id)}`);
  selected = user;
  document.getElementById('user-title').textContent = user.email;
  fill(userCard, {
    name: user.name ?? '—',
    role: user.role === 'admin' ? 'Admin' : 'User',
    status: status(user),
    lastSignInAt: user.lastSignInAt ? new Date(user.lastSignInAt).toLocaleString() : 'Never',
    sessions: String(sessions.length),
  });
  // An admin is never banned or impersonated: those forms are for users only.
  const isUser = user.role === 'user';
  document.getElementById('ban-form').hidden = !isUser || user.banned;
  document.getElementById('unban').hidden = !user.banned;
  document.getElementById('impersonate-form').hidden = !isUser || user.banned;
  userCard.hidden = false;
}

async function afterChange(notice) {
  await showUser(selected.id);
  await showUsers();
  showNotice(userNotice, notice);
}

onSubmit(document.getElementById('search-form'), async ({ query, filter }) => {
  search = new URLSearchParams();
  if (query) search.set('query', query);
  if (filter === 'banned') search.set('banned', 'true');
  if (filter === 'admin') search.set('role', 'admin');
  await showUsers();
});

onClick(more, document.getElementById('more-alert'), () => showUsers(true));

onClick(document.getElementById('end-sessions'), userAlert, async () => {
  await api(`/api/admin/users/${encodeURIComponent(selected.id)}/sessions`, { method: 'DELETE' });
  await afterChange(`Every session of ${selected.email} has ended.`);
});

onClick(document.getElementById('unban'), userAlert, async () => {
  await api(`/api/admin/users/${encodeURIComponent(selected.id)}/unban`, { method: 'POST' });
  await afterChange(`${selected.email} is no longer banned.`);
});

onSubmit(document.getElementById('ban-form'), async ({ reason, expiresInHours }, form) => {
  const body = { reason, ...(expiresInHours ? { expiresInHours: Number(expiresInHours) } : {}) };
  await api(`/api/admin/users/${encodeURIComponent(selected.id)}/ban`, { body });
  form.reset();
  await afterChange(`${selected.email} is banned; their sessions have ended.`);
});

onSubmit(document.getElementById('impersonate-form'), async ({ reason }) => {
  const answer = await api(`/api/admin/users/${encodeURIComponent(selected.id)}/impersonate`, { body: { reason } });
  keepImpersonation(answer, '/admin');
  location.assign('/account');
});

if (await signedIn()) {
  try {
    await showUsers();
  } catch (error) {
    if (error.code === 'UNAUTHENTICATED') signInFirst();
    else showError(alert, error.code === 'FORBIDDEN' ? { message: 'This page is for the admins of this app.' } : error);
  }
} else {
  signInFirst();
}
