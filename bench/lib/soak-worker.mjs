// The client of bench/cases/soak.mjs, run as its own process (child_process.fork) so its CPU is
// never inside the measured server. Mixed traffic in a closed loop: `concurrency` keep-alive
// connections, each sending its next request when the previous answer has been read, for
// `seconds`. Each request is drawn from MIX by weight. An answer with another status than the
// one its kind expects fails the whole load.
//
// Message in:  { url, seconds, concurrency, users: [{ email, password, token, organizationId }], windowSeconds }
// Messages out: { window: { at, count, p99 } } every windowSeconds, then
//               { ok: true, result: { count, seconds, rps, p50, p99, max, byKind } } or { ok: false, error }
import http from 'node:http';

const percentile = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] : 0);

let serial = 0;
const fresh = (label) => `${label}-${process.pid}-${Date.now().toString(36)}-${++serial}`;

/** What a signed-in user does, by weight; each returns [method, path, body, expected status]. */
const MIX = [
  { kind: 'signIn', weight: 1, make: (user) => ['POST', '/api/auth/login', { email: user.email, password: user.password }, 200] },
  { kind: 'me', weight: 10, make: () => ['GET', '/api/auth/me', undefined, 200] },
  { kind: 'listOrganizations', weight: 4, make: () => ['GET', '/api/organizations?limit=20', undefined, 200] },
  { kind: 'readOrganization', weight: 4, make: (user) => ['GET', `/api/organizations/${user.organizationId}`, undefined, 200] },
  { kind: 'listMembers', weight: 4, make: (user) => ['GET', `/api/organizations/${user.organizationId}/members?limit=50`, undefined, 200] },
  { kind: 'createOrganization', weight: 1, make: () => ['POST', '/api/organizations', { name: 'Soak', slug: fresh('soak') }, 201] },
  { kind: 'renameOrganization', weight: 1, make: (user) => ['PUT', `/api/organizations/${user.organizationId}`, { name: fresh('Renamed') }, 200] },
  { kind: 'invite', weight: 2, make: (user) => ['POST', `/api/organizations/${user.organizationId}/invite`, { email: `${fresh('guest')}@example.com` }, 201] },
  { kind: 'listInvites', weight: 2, make: (user) => ['GET', `/api/organizations/${user.organizationId}/invites`, undefined, 200] },
];
const totalWeight = MIX.reduce((sum, entry) => sum + entry.weight, 0);
function draw() {
  let pick = Math.random() * totalWeight;
  for (const entry of MIX) if ((pick -= entry.weight) < 0) return entry;
  return MIX[0];
}

function send(agent, url, method, route, body, token) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const request = http.request(
      `${url}${route}`,
      {
        agent,
        method,
        headers: {
          ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode, text }));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}

async function soak({ url, seconds, concurrency, users, windowSeconds }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency, maxFreeSockets: concurrency });
  const latencies = [];
  const byKind = Object.fromEntries(MIX.map((entry) => [entry.kind, { count: 0, latencies: [] }]));
  let windowLatencies = [];
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const ticker = setInterval(() => {
    const sorted = windowLatencies.sort((a, b) => a - b);
    process.send({ window: { at: Math.round((performance.now() - started) / 1000), count: sorted.length, p99: percentile(sorted, 99) } });
    windowLatencies = [];
  }, windowSeconds * 1000);
  let failure;
  const loop = async (index) => {
    while (performance.now() < deadline && !failure) {
      const user = users[(index + latencies.length) % users.length];
      const entry = draw();
      const [method, route, body, expected] = entry.make(user);
      const began = performance.now();
      const { status, text } = await send(agent, url, method, route, body, entry.kind === 'signIn' ? undefined : user.token);
      const ms = performance.now() - began;
      if (status !== expected) {
        failure = new Error(`${method} ${route} (${entry.kind}) answered ${status}, not ${expected}: ${text.slice(0, 300)}`);
        break;
      }
      latencies.push(ms);
      windowLatencies.push(ms);
      byKind[entry.kind].count += 1;
      byKind[entry.kind].latencies.push(ms);
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, (_, index) => loop(index)));
  } finally {
    clearInterval(ticker);
    agent.destroy();
  }
  if (failure) throw failure;
  const elapsed = (performance.now() - started) / 1000;
  const sorted = latencies.sort((a, b) => a - b);
  return {
    count: sorted.length,
    seconds: elapsed,
    rps: sorted.length / elapsed,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? 0,
    byKind: Object.fromEntries(
      Object.entries(byKind).map(([kind, { count, latencies: own }]) => {
        const ordered = own.sort((a, b) => a - b);
        return [kind, { count, p50: percentile(ordered, 50), p99: percentile(ordered, 99) }];
      }),
    ),
  };
}

process.on('message', async (message) => {
  try {
    process.send({ ok: true, result: await soak(message) });
  } catch (error) {
    process.send({ ok: false, error: String(error?.stack ?? error) });
  }
});
process.on('disconnect', () => process.exit(0));
