/**
 * /organizations: the caller's organizations and a form to create one; with ?id=, that
 * organization's members and, for owners and admins, its pending invites, invite and revoke.
 */
import { api, signedIn } from './api.js';
import { signInFirst } from './session.js';
import { actionButton, el, onSubmit, showError, showNotice } from './ui.js';

const ROLES = { owner: 'Owner', admin: 'Admin', member: 'Member' };
const alert = document.getElementById('page-alert');
const selectedId = new URLSearchParams(location.search).get('id');

async function showList() {
  const { organizations } = await api('/api/organizations?limit=200');
  const list = document.getElementById('organizations');
  list.replaceChildren(
    ...organizations.map((organization) => {
      const item = el('li');
      const link = el('a', organization.name);
      link.href = `/organizations?${new URLSearchParams({ id: organization.id })}`;
      if (organization.id === selectedId) link.setAttribute('aria-current', 'page');
      item.append(link, el('span', ROLES[organization.role], 'muted'));
      return item;
    }),
  );
  if (organizations.length === 0) list.append(el('li', 'You are not in any organization yet.', 'muted'));
}

async function showInvites(organizationId) {
  const { invites } = await api(`/api/organizations/${organizationId}/invites?limit=200`);
  const region = document.getElementById('invites-alert');
  const list = document.getElementById('invites');
  list.replaceChildren(
    ...invites.map((invite) => {
      const item = el('li');
      const revoke = actionButton(
        'Revoke',
        region,
        async () => {
          await api(`/api/organizations/${organizationId}/invites/${invite.id}`, { method: 'DELETE' });
          await showInvites(organizationId);
        },
        { name: `Revoke the invite for ${invite.email}` },
      );
      item.append(el('span', `${invite.email} · ${ROLES[invite.role]}`), revoke);
      return item;
    }),
  );
  if (invites.length === 0) list.append(el('li', 'No pending invites.', 'muted'));
}

async function showOrganization(id) {
  const [{ organization }, { members }] = await Promise.all([
    api(`/api/organizations/${encodeURIComponent(id)}`),
    api(`/api/organizations/${encodeURIComponent(id)}/members?limit=200`),
  ]);
  document.getElementById('organization-title').textContent = organization.name;
  document.getElementById('organization-summary').textContent = `${organization.slug} · you are ${ROLES[organization.role].toLowerCase()}`;
  document.getElementById('members').replaceChildren(
    ...members.map((member) => {
      const row = el('tr');
      row.append(el('td', member.name ?? '—'), el('td', member.email), el('td', ROLES[member.role]));
      return row;
    }),
  );
  const manages = organization.role === 'owner' || organization.role === 'admin';
  document.getElementById('invites-section').hidden = !manages;
  document.querySelector('#invite-role option[value="admin"]').disabled = organization.role !== 'owner';
  document.getElementById('organization').hidden = false;
  if (manages) await showInvites(organization.id);
  return organization;
}

onSubmit(document.getElementById('create-form'), async ({ name, slug }) => {
  const { organization } = await api('/api/organizations', { body: { name, ...(slug ? { slug } : {}) } });
  location.assign(`/organizations?${new URLSearchParams({ id: organization.id })}`);
});

const inviteForm = document.getElementById('invite-form');
onSubmit(inviteForm, async ({ email, role }) => {
  const { invite, inviteUrl, emailSent } = await api(`/api/organizations/${encodeURIComponent(selectedId)}/invite`, { body: { email, role } });
  inviteForm.reset();
  showNotice(inviteForm.querySelector('[role="status"]'), emailSent ? `Invite mailed to ${invite.email}.` : `The invite for ${invite.email} could not be mailed; share its link instead.`);
  const link = document.getElementById('invite-link');
  link.value = inviteUrl;
  link.hidden = false;
  document.getElementById('invite-link-label').hidden = false;
  await showInvites(selectedId);
});

if (!(await signedIn())) {
  signInFirst();
} else {
  try {
    await Promise.all([showList(), selectedId ? showOrganization(selectedId) : undefined]);
  } catch (error) {
    showError(alert, error);
  }
}
