// The HTTP load generator of bench/cases/http.mjs, run as its own process (child_process.fork) so
// the client's CPU is never inside the measured server. Plain node:http with a keep-alive agent:
// `concurrency` connections, each with one request in flight at a time (a closed loop), `count`
// requests in all. Every answer's body is read to the end; any status other than 200, or a
// socket error, fails the whole load.
//
// A load with `refreshTokens` (one per connection) posts { refreshToken } to `url` instead of a
// GET, as a client refreshing its session does: each connection sends the refresh token of the
// previous answer, so every request rotates a live token. The last tokens come back in the result
// for the next load. A load with `body` posts that same JSON body every time (a sign-in).
//
// Message in:  { id, url, headers, count, concurrency, refreshTokens?, body? }
// Message out: { id, ok: true, result: { count, seconds, rps, p50, p90, p99, max, connections, clientCpuShare, refreshTokens? } }
//          or  { id, ok: false, error }
import http from 'node:http';

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];

/** GET url, or POST body as JSON when there is one; the answer's status and, for a POST, its text. */
function send(agent, url, headers, body) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const options = payload === undefined ? { agent, headers } : { agent, method: 'POST', headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } };
    const request = http.request(url, options, (response) => {
      const chunks = [];
      response.on('data', (chunk) => payload !== undefined && chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode, text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(payload);
  });
}

async function load({ url, headers = {}, count, concurrency, refreshTokens, body: fixedBody }) {
  if (refreshTokens && refreshTokens.length !== concurrency) throw new Error(`refreshTokens: one per connection (${concurrency}), got ${refreshTokens.length}`);
  const tokens = refreshTokens ? [...refreshTokens] : undefined;
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency, maxFreeSockets: concurrency });
  const sockets = new Set();
  agent.on('free', (socket) => sockets.add(socket));
  const latencies = new Float64Array(count);
  let issued = 0;
  let done = 0;
  let failed = false;
  const loop = async (_, connection) => {
    try {
      while (issued < count && !failed) {
        issued += 1;
        const started = performance.now();
        const body = tokens ? { refreshToken: tokens[connection] } : fixedBody;
        const { status, text } = await send(agent, url, headers, body);
        latencies[done++] = performance.now() - started;
        if (status !== 200) throw new Error(`${body ? 'POST' : 'GET'} ${new URL(url).pathname} answered ${status}, not 200: ${text.slice(0, 200)}`);
        if (tokens) tokens[connection] = JSON.parse(text).refreshToken;
      }
    } catch (error) {
      failed = true;
      throw error;
    }
  };
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  try {
    await Promise.all(Array.from({ length: concurrency }, loop));
  } finally {
    agent.destroy();
  }
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const sorted = Array.from(latencies).sort((a, b) => a - b);
  return {
    count,
    seconds,
    rps: count / seconds,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1],
    connections: sockets.size,
    // The load generator's own CPU time over the wall time: near 1 means the client, not the
    // server, may be the limit.
    clientCpuShare: (cpu.user + cpu.system) / 1e6 / seconds,
    ...(tokens ? { refreshTokens: tokens } : {}),
  };
}

process.on('message', async (message) => {
  if (message === 'exit') process.exit(0);
  try {
    process.send({ id: message.id, ok: true, result: await load(message) });
  } catch (error) {
    process.send({ id: message.id, ok: false, error: String(error?.stack ?? error) });
  }
});
process.on('disconnect', () => process.exit(0));
