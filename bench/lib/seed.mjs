// The data of bench/cases/http.mjs, the same on both servers: the signed-in user owns one
// organization of MEMBERS members (the user and MEMBERS - 1 others). The Gatekit user also belongs to
// ORGANIZATIONS_OF_USER organizations, for the Gatekit-only figures (organizations list, a members
// page from the middle). Users and the first organization are created through each server's own API
// (so tokens, password hashes and date formats are the server's own); the other rows are copies of
// those rows written straight into the database (bench/lib/databases.mjs).

import { CONCURRENCY } from './servers.mjs';

export const MEMBERS = 10_000;
export const ORGANIZATIONS_OF_USER = 200;
const PASSWORD = 'a long bench passphrase';

const pad = (n) => String(n).padStart(6, '0');
const range = (from, to) => Array.from({ length: to - from }, (_, i) => from + i);

async function json(response, expected, what) {
  const text = await response.text();
  if (response.status !== expected) throw new Error(`${what} answered ${response.status}, not ${expected}: ${text.slice(0, 500)}`);
  return JSON.parse(text);
}

const post = (url, body, headers = {}) => fetch(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** Gatekit: register, create the big organization, then copies. Returns what the loads need. */
export async function seedGatekit(url, databases) {
  const registered = await json(await post(`${url}/api/auth/register`, { email: 'bench-owner@example.com', password: PASSWORD, name: 'Owner' }), 201, 'gatekit register');
  const bearer = { authorization: `Bearer ${registered.token}` };
  const created = await json(await post(`${url}/api/organizations`, { name: 'Big Org', slug: 'big-org' }, bearer), 201, 'gatekit create organization');
  const userId = registered.user.id;
  const organizationId = created.organization.id;

  const rows = await databases.rows('gatekit');
  try {
    const user = await rows.one('User', { id: userId });
    const organization = await rows.one('Organization', { id: organizationId });
    const owner = await rows.one('OrgMember', { organizationId, userId });
    if (!user || !organization || !owner) throw new Error('gatekit: the rows created through the API are not in the database');
    const others = range(1, MEMBERS);
    await rows.copies('User', user, others.map((i) => ({ id: `bench-user-${pad(i)}`, email: `bench-user-${pad(i)}@example.com`, name: `Member ${i}` })));
    await rows.copies('OrgMember', owner, others.map((i) => ({ id: `member-big-${pad(i)}`, userId: `bench-user-${pad(i)}`, role: i % 50 === 0 ? 'admin' : 'member' })));
    const organizations = range(1, ORGANIZATIONS_OF_USER);
    await rows.copies('Organization', organization, organizations.map((i) => ({ id: `bench-org-${pad(i)}`, name: `Org ${i}`, slug: `org-${pad(i)}` })));
    await rows.copies('OrgMember', owner, organizations.map((i) => ({ id: `member-of-user-${pad(i)}`, organizationId: `bench-org-${pad(i)}`, role: i % 3 === 0 ? 'member' : 'owner' })));
    await rows.analyze();
  } finally {
    await rows.close();
  }
  // One session per load connection for the refresh figure: each connection rotates its own token.
  const refreshTokens = [];
  for (let i = 0; i < CONCURRENCY; i++) {
    const signedIn = await json(await post(`${url}/api/auth/login`, { email: 'bench-owner@example.com', password: PASSWORD }), 200, 'gatekit login');
    refreshTokens.push(signedIn.refreshToken);
  }
  const madeKey = await json(await post(`${url}/api/auth/api-keys`, { name: 'bench' }, bearer), 201, 'gatekit API key');
  const apiKey = { authorization: `Bearer ${madeKey.key}` };
  return { userId, organizationId, bearer, apiKey, refreshTokens, email: 'bench-owner@example.com', password: PASSWORD, middleCursor: `member-big-${pad(MEMBERS / 2)}` };
}

/** A Bearer header for the seeded owner, signed by the Gatekit server at `url` (another JWT_ALGORITHM, same database). */
export async function gatekitBearer(url, { email, password }) {
  const signedIn = await json(await post(`${url}/api/auth/login`, { email, password }), 200, 'gatekit login');
  return { authorization: `Bearer ${signedIn.token}` };
}

/** Better Auth: sign-up (session cookie), the organization through its plugin, then copies in its own tables. */
export async function seedPeer(url, databases) {
  const origin = { origin: url };
  const signUp = await post(`${url}/api/auth/sign-up/email`, { email: 'bench-owner@example.com', password: PASSWORD, name: 'Owner' }, origin);
  const signedUp = await json(signUp, 200, 'peer sign-up');
  const sessionCookie = signUp.headers
    .getSetCookie()
    .map((cookie) => cookie.split(';')[0])
    .find((cookie) => cookie.startsWith('better-auth.session_token='));
  if (!sessionCookie) throw new Error('peer sign-up set no session cookie');
  const cookie = { cookie: sessionCookie };
  const created = await json(await post(`${url}/api/auth/organization/create`, { name: 'Big Org', slug: 'big-org' }, { ...origin, ...cookie }), 200, 'peer create organization');
  const userId = signedUp.user.id;
  const organizationId = created.id;

  const rows = await databases.rows('peer');
  try {
    const user = await rows.one('user', { id: userId });
    const owner = await rows.one('member', { organizationId, userId });
    if (!user || !owner) throw new Error('peer: the rows created through the API are not in the database');
    const others = range(1, MEMBERS);
    await rows.copies('user', user, others.map((i) => ({ id: `bench-user-${pad(i)}`, email: `bench-user-${pad(i)}@example.com`, name: `Member ${i}` })));
    await rows.copies('member', owner, others.map((i) => ({ id: `member-big-${pad(i)}`, userId: `bench-user-${pad(i)}`, role: i % 50 === 0 ? 'admin' : 'member' })));
    await rows.analyze();
  } finally {
    await rows.close();
  }
  const madeKey = await json(await post(`${url}/api/auth/api-key/create`, { name: 'bench' }, { ...origin, ...cookie }), 200, 'peer API key');
  return { userId, organizationId, cookie, apiKey: { 'x-api-key': madeKey.key } };
}

/** Each server answers what was seeded, before anything is measured. */
export async function checkSeeded(get, endpoints, { gatekit, peer }) {
  for (const name of ['gatekit', 'gatekitMe', 'gatekitEdDSA']) {
    const me = await get(name, endpoints.authMe[name]);
    if (me.user?.id !== gatekit.userId) throw new Error(`${name} /api/auth/me does not return the registered user`);
  }
  const read = await get('barePrisma', endpoints.authMe.barePrisma);
  if (read.user?.id !== gatekit.userId) throw new Error('bare Prisma read does not return the registered user');
  const session = await get('peer', endpoints.authMe.peer);
  if (session?.user?.id !== peer.userId) throw new Error('peer get-session does not return the signed-up user');
  if ((await get('gatekit', endpoints.authMeApiKey.gatekit)).user?.id !== gatekit.userId) throw new Error('gatekit /api/auth/me with the API key does not return its user');
  if ((await get('peer', endpoints.authMeApiKey.peer))?.user?.id !== peer.userId) throw new Error('peer get-session with the API key does not return its user');
  const gatekitPage = await get('gatekit', endpoints.members.gatekit);
  if (gatekitPage.members?.length !== 50 || !gatekitPage.nextCursor) throw new Error('gatekit: the members page is not what was seeded');
  const peerPage = await get('peer', endpoints.members.peer);
  if (peerPage.members?.length !== 50 || peerPage.total !== MEMBERS || !peerPage.members[0].user?.email) throw new Error(`peer: the members page is not what was seeded (total ${peerPage.total})`);
  let organizationCount = 0;
  for (let cursor = null, first = true; first || cursor; first = false) {
    const page = await get('gatekit', endpoints.organizations.gatekit, `?limit=200${cursor ? `&cursor=${cursor}` : ''}`);
    organizationCount += page.organizations.length;
    cursor = page.nextCursor;
  }
  if (organizationCount !== ORGANIZATIONS_OF_USER) throw new Error(`gatekit: the user is in ${organizationCount} organizations, not ${ORGANIZATIONS_OF_USER}`);
}
