// Account enumeration after the answer (issue 31, item 4; CONTRACT B.4): can a request sent right
// after POST /api/auth/password/forgot tell whether the address has an account?
//
// The generated full app (SQLite, NODE_ENV=production, bcrypt cost 12, a real SMTP server from the
// smtp-server package on 127.0.0.1 accepting every mail) gets PAIRS pairs of trials. A pair is one
// trial with a registered address and one with an unknown address, in random order; a trial posts
// forgot for the address and, the moment its 202 arrives, sends a probe (GET /readyz: one database
// read through the same event loop) and times it. Between trials the app is left alone for
// SETTLE_MS, so each trial starts from quiet.
//
// The statistic: the paired differences d = probe(known) - probe(unknown); z = mean(d) / (sd(d) /
// sqrt(n)). |z| < 2 means the probe cannot tell the two apart at this sample size; release 4.0 gave
// z = 5.6 over 60 pairs in the attack pass. Printed with the medians; nothing here is asserted.
//
//   BENCH_ONLY=enumeration npm run bench     (or node bench/cases/enumeration.mjs)
// Environment: BENCH_ENUMERATION_PAIRS (default 100), BENCH_HTTP_APP (an app already generated,
// installed and built).
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { prepareApp } from '../lib/apps.mjs';
import { baseEnv, median, round2, sh, startCommand, startServer } from '../lib/servers.mjs';

const PAIRS = Number(process.env.BENCH_ENUMERATION_PAIRS ?? 100);
const SETTLE_MS = 400;
const PASSWORD = 'a long enough password for the bench';
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A real SMTP server that accepts and counts every message. */
async function startSmtp(root) {
  const { SMTPServer } = createRequire(path.join(root, 'package.json'))('smtp-server');
  let received = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, _session, callback) {
      stream.resume();
      stream.on('end', () => {
        received += 1;
        callback();
      });
    },
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: server.server.address().port, received: () => received, close: () => new Promise((resolve) => server.close(resolve)) };
}

const post = (url, path, body) =>
  fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** One trial: forgot for `email`, then the probe the moment the answer is in; the probe's time in ms. */
async function trial(url, email) {
  const answer = await post(url, '/api/auth/password/forgot', { email });
  await answer.arrayBuffer();
  if (answer.status !== 202) throw new Error(`forgot answered ${answer.status}`);
  const started = performance.now();
  const probe = await fetch(`${url}/readyz`);
  await probe.arrayBuffer();
  const ms = performance.now() - started;
  if (probe.status !== 200) throw new Error(`the probe answered ${probe.status}`);
  await sleep(SETTLE_MS);
  return ms;
}

function statistic(known, unknown) {
  const differences = known.map((value, index) => value - unknown[index]);
  const mean = differences.reduce((sum, value) => sum + value, 0) / differences.length;
  const variance = differences.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (differences.length - 1);
  return { meanDifferenceMs: round2(mean), z: round2(mean / Math.sqrt(variance / differences.length)) };
}

export async function run({ root }) {
  const app = prepareApp(root, 'sqlite');
  const work = path.join(tmpdir(), `gatekit-bench-enumeration-${process.pid}`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const smtp = await startSmtp(root);
  const env = {
    ...baseEnv(),
    DATABASE_URL: `file:${path.join(work, 'app.db')}`,
    JWT_SECRET: randomBytes(48).toString('base64'),
    RATE_LIMIT_MAX: '0',
    MAIL_PER_ADDRESS_MAX: '0',
    SMTP_HOST: '127.0.0.1',
    SMTP_PORT: String(smtp.port),
    MAIL_FROM: 'bench@gatekit.test',
    LOG_LEVEL: 'warn',
  };
  sh('npm', ['run', 'db:migrate'], { cwd: app.dir, env });
  const server = await startServer({ name: 'gatekit', cwd: app.dir, ...startCommand(app.dir), env, readyPath: '/healthz' });
  try {
    const known = [];
    for (let i = 0; i < PAIRS; i++) {
      const email = `known-${i}-${randomBytes(4).toString('hex')}@example.com`;
      const registered = await post(server.url, '/api/auth/register', { email, password: PASSWORD });
      if (registered.status !== 201) throw new Error(`register answered ${registered.status}`);
      known.push(email);
    }
    // A warm-up, so the first trials do not pay for the first SMTP connection and compiled code.
    for (let i = 0; i < 5; i++) await trial(server.url, known[i]);
    const times = { known: [], unknown: [] };
    for (let i = 0; i < PAIRS; i++) {
      const order = Math.random() < 0.5 ? ['known', 'unknown'] : ['unknown', 'known'];
      for (const kind of order) {
        const email = kind === 'known' ? known[i] : `unknown-${i}-${randomBytes(4).toString('hex')}@example.com`;
        times[kind].push(await trial(server.url, email));
      }
    }
    return {
      pairs: PAIRS,
      probe: 'GET /readyz sent when the forgot answer arrived',
      medianMs: { known: round2(median(times.known)), unknown: round2(median(times.unknown)) },
      ratioOfMedians: round2(median(times.known) / median(times.unknown)),
      ...statistic(times.known, times.unknown),
      mailsReceived: smtp.received(),
    };
  } finally {
    await server.stop();
    await smtp.close();
    rmSync(work, { recursive: true, force: true });
  }
}

export function format(result) {
  return [
    `enumeration after the answer (${result.pairs} randomized pairs; probe: ${result.probe})`,
    `  probe median  known ${result.medianMs.known} ms  unknown ${result.medianMs.unknown} ms  ratio ${result.ratioOfMedians}`,
    `  paired difference ${result.meanDifferenceMs} ms, z = ${result.z} (|z| < 2: the probe cannot tell them apart)`,
    `  mails received by the SMTP server: ${result.mailsReceived}`,
  ];
}

if (import.meta.url === pathToFileURL(fileURLToPath(import.meta.url)).href && process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  const result = await run({ root });
  console.log(format(result).join('\n'));
  console.log(JSON.stringify(result, null, 2));
}
