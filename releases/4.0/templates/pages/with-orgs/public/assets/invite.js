/**
 * /invite/:token: shows who invites whom to what (no sign-in needed), then accepts as the
 * signed-in user. Without a session this tab signs in or signs up first and comes back here;
 * the account must have the invited email address.
 */
import { api, signedIn } from './api.js';
import { signInFirst } from './session.js';
import { fill, onClick, showError, showNotice } from './ui.js';

const ROLES = { admin: 'Admin', member: 'Member' };
const token = decodeURIComponent(location.pathname.split('/').pop());
const path = `/api/organizations/invite/${encodeURIComponent(token)}`;
const acceptButton = document.getElementById('accept');
const signInButton = document.getElementById('sign-in-to-accept');

async function showSignedInUser() {
  const { user } = await api('/api/auth/me');
  const note = document.getElementById('signed-in-as');
  note.textContent = `You are signed in as ${user.email}.`;
  note.hidden = false;
}

try {
  const invite = await api(path);
  document.getElementById('invite-title').textContent = `Join ${invite.organization.name}`;
  fill(document.getElementById('invite'), {
    organization: `${invite.organization.name} (${invite.organization.slug})`,
    role: ROLES[invite.role] ?? invite.role,
    invitedBy: invite.invitedBy?.name ?? 'A member of the organization',
    expiresAt: new Date(invite.expiresAt).toLocaleString(),
  });
  document.getElementById('invite').hidden = false;
  if (await signedIn()) {
    await showSignedInUser();
  } else {
    acceptButton.hidden = true;
    signInButton.hidden = false;
  }
} catch (error) {
  showError(document.getElementById('page-alert'), error);
}

signInButton.addEventListener('click', () => signInFirst());
onClick(acceptButton, document.getElementById('accept-alert'), async () => {
  const { organization } = await api(`${path}/accept`, { method: 'POST' });
  showNotice(document.getElementById('accept-notice'), `You joined ${organization.name}.`);
  acceptButton.hidden = true;
  const open = document.getElementById('open-organization');
  open.href = `/organizations?${new URLSearchParams({ id: organization.id })}`;
  open.hidden = false;
});
