// A runtime smoke of a generated app that is already listening: health, readiness, a sign-up, a
// sign-in and /me. Usage: node scripts/smoke-app.mjs http://127.0.0.1:3000
const base = process.argv[2];
if (!base) throw new Error('usage: node scripts/smoke-app.mjs <base url>');

async function call(method, path, body, token) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

function expectStatus(step, answer, status) {
  if (answer.status !== status) throw new Error(`${step}: expected ${status}, got ${answer.status} ${JSON.stringify(answer.body)}`);
  console.log(`ok ${step} (${status})`);
}

const email = `smoke-${Date.now()}@example.com`;
const password = 'a smoke test passphrase';
expectStatus('GET /healthz', await call('GET', '/healthz'), 200);
expectStatus('GET /readyz', await call('GET', '/readyz'), 200);
expectStatus('POST /api/auth/register', await call('POST', '/api/auth/register', { email, password, name: 'Smoke' }), 201);
const login = await call('POST', '/api/auth/login', { email, password });
expectStatus('POST /api/auth/login', login, 200);
const me = await call('GET', '/api/auth/me', undefined, login.body.token);
expectStatus('GET /api/auth/me', me, 200);
if (me.body.user.email !== email) throw new Error(`/me answered ${me.body.user.email}, not ${email}`);
expectStatus('GET /api/auth/me without a token', await call('GET', '/api/auth/me'), 401);
