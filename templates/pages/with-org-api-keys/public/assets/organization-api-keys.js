/**
 * An organization page's API keys, its service accounts, for owners and admins (members do not
 * see the section). A key acts in this organization only, as a member or an admin; only an owner
 * makes an admin key, so an admin is not offered one.
 */
import { manageKeys } from './api-keys.js';
import { onOrganization } from './organizations.js';

const section = document.getElementById('organization-api-keys');

onOrganization((organization) => {
  const manages = organization.role === 'owner' || organization.role === 'admin';
  section.hidden = !manages;
  if (!manages) return;
  const admin = section.querySelector('option[value="admin"]');
  admin.hidden = organization.role !== 'owner';
  admin.disabled = admin.hidden;
  manageKeys(section, `/api/organizations/${encodeURIComponent(organization.id)}/api-keys`).show();
});
