// The HTTP load generator of bench/cases/http.mjs, run as its own process (child_process.fork) so
// the client's CPU is never inside the measured server. Plain node:http with a keep-alive agent:
// `concurrency` connections, each with one request in flight at a time (a closed loop), `count`
// requests in all. Every answer's body is read to the end; any status other than 200, or a
// socket error, fails the whole load.
//
// Message in:  { id, url, headers, count, concurrency }
// Message out: { id, ok: true, result: { count, seconds, rps, p50, p90, p99, max, connections, clientCpuShare } }
//          or  { id, ok: false, error }
import http from 'node:http';

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];

function get(agent, url, headers) {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent, headers }, (response) => {
      let bytes = 0;
      response.on('data', (chunk) => (bytes += chunk.length));
      response.on('end', () => resolve({ status: response.statusCode, bytes }));
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}

async function load({ url, headers = {}, count, concurrency }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency, maxFreeSockets: concurrency });
  const sockets = new Set();
  agent.on('free', (socket) => sockets.add(socket));
  const latencies = new Float64Array(count);
  let issued = 0;
  let done = 0;
  let failed = false;
  const loop = async () => {
    try {
      while (issued < count && !failed) {
        issued += 1;
        const started = performance.now();
        const { status } = await get(agent, url, headers);
        latencies[done++] = performance.now() - started;
        if (status !== 200) throw new Error(`GET ${new URL(url).pathname} answered ${status}, not 200`);
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
