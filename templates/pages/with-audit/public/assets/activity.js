/**
 * The account page's recent security activity: the newest events of GET /api/auth/activity (what
 * the user did, and what was done to their account, failed sign-ins with their address included),
 * in plain words with when, from which address and on what device. "Show older activity" loads
 * the next page with the answer's nextCursor. Every value of an event reaches the page as text.
 */
import { onUser } from './account.js';
import { api, providers } from './api.js';
import { el, onClick, showError } from './ui.js';

const PAGE_SIZE = 10;

const section = document.getElementById('activity');
const list = document.getElementById('activity-list');
const alert = section.querySelector('[role="alert"]');
const more = document.getElementById('activity-more');

/** A sign-in method after "with" (a provider or hosted service: its name). */
const WITH = {
  password: 'a password',
  magic_link: 'a magic link',
  passkey: 'a passkey',
  password_reset: 'a password reset link',
  second_factor: 'a second factor',
  oauth: 'a provider',
  impersonation: "an admin's impersonation",
};
const SECOND_FACTORS = { totp: 'an authenticator code', recovery_code: 'a recovery code', passkey: 'a passkey' };

/** The words a table has for `key`, or undefined (never something inherited, such as `constructor`). */
const wordsFor = (table, key) => (Object.hasOwn(table, key) ? table[key] : undefined);

/** Hosted services by id; OAuth providers are added with the names /api/auth/providers gives them. */
let providerNames = { clerk: 'Clerk', auth0: 'Auth0', supabase: 'Supabase', authjs: 'Auth.js' };
const named = (method) => wordsFor(providerNames, method) ?? method;
const withMethod = (method) => wordsFor(WITH, method) ?? named(method);

/** Why a sign-in was refused (metadata.reason is the API's error code, in lower case). */
function refusal({ method, reason }) {
  if (reason === 'account_banned') return 'account banned';
  if (reason === 'invalid_code') return 'wrong code';
  if (reason === 'invalid_credentials' && method === 'password') return 'wrong password';
  if (reason === 'invalid_credentials' && method === 'passkey') return 'passkey not accepted';
  if (method === 'magic_link' || method === 'password_reset') return 'link expired or already used';
  return `${named(method)}: ${String(reason).replace(/_/g, ' ')}`;
}

const apiKey = (event) => (event.organizationId ? 'Organization API key' : 'API key');

/**
 * What each action says, from its metadata; `mine` is true when it was done to the user's own
 * account (an admin's ban) rather than by the user to someone else (the user is an admin).
 */
const SAYS = {
  'auth.registered': (data) => `Account created with ${withMethod(data.method)}`,
  'auth.signed_in': (data) => `Signed in with ${withMethod(data.method)}${data.secondFactor ? ` and ${wordsFor(SECOND_FACTORS, data.secondFactor) ?? data.secondFactor}` : ''}`,
  'auth.sign_in_failed': (data) => `Failed sign-in (${refusal(data)})`,
  'auth.signed_out': (data) => (data.everywhere ? 'Signed out everywhere' : 'Signed out'),
  'session.ended': (data) => (data.otherSessions === undefined ? 'Signed out a device' : 'Signed out every other device'),
  'session.refresh_reuse_detected': () => 'A stolen sign-in was used: that device was signed out',
  'password.changed': () => 'Password changed',
  'password.reset': () => 'Password reset from an emailed link',
  'email.verified': () => 'Email address verified',
  'account.taken_over': () => 'Email address proven: sign-in methods set up before were removed',
  'account.exported': () => 'Your data downloaded',
  'two_factor.enabled': () => 'Two-factor authentication turned on',
  'two_factor.disabled': () => 'Two-factor authentication turned off',
  'two_factor.recovery_codes_created': () => 'New recovery codes made',
  'passkey.added': (data) => (data.name ? `Passkey added: ${data.name}` : 'Passkey added'),
  'passkey.removed': () => 'Passkey removed',
  'identity.linked': (data) => `${named(data.provider)} account linked`,
  'identity.unlinked': (data) => `${named(data.provider)} account unlinked`,
  'api_key.created': (data, _mine, event) => `${apiKey(event)} created: ${data.name}`,
  'api_key.deleted': (_data, _mine, event) => `${apiKey(event)} deleted`,
  'organization.created': (data) => `Organization created: ${data.slug}`,
  'organization.updated': () => 'Organization changed',
  'organization.deleted': () => 'Organization deleted',
  'member.added': (_data, mine) => (mine ? 'Joined an organization' : 'Added a member to an organization'),
  'member.removed': (data, mine) => (data.left ? 'Left an organization' : mine ? 'Removed from an organization' : 'Removed a member from an organization'),
  'member.role_changed': (data, mine) => (mine ? `Your role in an organization changed to ${data.to}` : `Changed a member's role to ${data.to}`),
  'invite.created': (data) => `Invited ${data.email} to an organization`,
  'invite.revoked': () => 'Revoked an invitation',
  'invite.accepted': () => 'Accepted an invitation',
  'admin.user_banned': (_data, mine) => (mine ? 'An admin banned your account' : 'Banned a user'),
  'admin.user_unbanned': (_data, mine) => (mine ? 'An admin lifted the ban on your account' : "Lifted a user's ban"),
  'admin.role_changed': (data, mine) => (mine ? `An admin made you ${data.role}` : `Made a user ${data.role}`),
  'admin.sessions_ended': (_data, mine) => (mine ? 'An admin signed you out everywhere' : "Ended a user's sessions"),
  'admin.impersonation_started': (_data, mine) => (mine ? 'An admin started acting as you' : 'Started acting as a user'),
  'admin.impersonation_stopped': (_data, mine) => (mine ? 'An admin stopped acting as you' : 'Stopped acting as a user'),
  'admin.user_deleted': () => 'Deleted a user',
};

/** Browsers and systems by a mark in the user agent, tested in this order (Edge's names Chrome too, an iPhone's macOS). */
const BROWSERS = [['Edge', /Edg\//], ['Opera', /OPR\//], ['Firefox', /Firefox\//], ['Chrome', /Chrome\/|CriOS\//], ['Safari', /Version\/.*Safari\//]];
const SYSTEMS = [['iPhone', /iPhone/], ['iPad', /iPad/], ['Android', /Android/], ['Windows', /Windows/], ['macOS', /Mac OS X/], ['ChromeOS', /CrOS/], ['Linux', /Linux/]];
const firstMatch = (names, userAgent) => names.find(([, mark]) => mark.test(userAgent))?.[0];

/** A short name for the device: "Chrome on Linux", or the start of the user agent when it names neither. */
function device(userAgent) {
  if (!userAgent) return 'unknown device';
  const browser = firstMatch(BROWSERS, userAgent);
  const system = firstMatch(SYSTEMS, userAgent);
  if (browser && system) return `${browser} on ${system}`;
  return browser ?? system ?? (userAgent.length > 60 ? `${userAgent.slice(0, 57)}…` : userAgent);
}

function row(event, userId) {
  const mine = event.target?.type === 'user' && event.target.id === userId;
  // An action of the app's own is shown by its name.
  const says = wordsFor(SAYS, event.action)?.(event.metadata, mine, event) ?? event.action;
  const byOther = event.actor.type === 'apiKey' ? ' (with an API key)' : event.actor.type === 'admin' && !event.action.startsWith('admin.') ? ' (by an admin)' : '';
  const facts = [new Date(event.occurredAt).toLocaleString(), event.ip ?? 'unknown address', device(event.userAgent)];
  const item = el('li');
  const text = el('span');
  text.append(el('strong', `${says}${byOther}`), document.createElement('br'), el('span', facts.join(' · '), 'muted'));
  item.append(text);
  return item;
}

let userId;
let nextPage = null;

/** Loads the page of events that `cursor` starts (the newest without one) and adds it to the list. */
async function load(cursor) {
  const query = new URLSearchParams({ limit: String(PAGE_SIZE), ...(cursor ? { cursor } : {}) });
  const { events, nextCursor } = await api(`/api/auth/activity?${query}`);
  if (!cursor) list.replaceChildren();
  list.append(...events.map((event) => row(event, userId)));
  if (list.children.length === 0) list.append(el('li', 'No activity yet.', 'muted'));
  nextPage = nextCursor;
  more.hidden = nextCursor === null;
}

onClick(more, alert, () => load(nextPage));

onUser(async (user) => {
  userId = user.id;
  try {
    const { oauth } = await providers();
    providerNames = { ...providerNames, ...Object.fromEntries(oauth.map((provider) => [provider.id, provider.name])) };
    await load(null);
  } catch (error) {
    showError(alert, error);
  }
});
