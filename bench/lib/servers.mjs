// What every HTTP benchmark needs to run servers and load them: free ports, starting a server
// process and timing it to its first 200, its CPU time and resident set from /proc (Linux), and the
// load generator process (bench/lib/load-worker.mjs). Used by bench/cases/http.mjs, soak.mjs and
// scripts/*-costs.mjs.
import { fork, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { createServer } from 'node:net';
import path from 'node:path';

/** Keep-alive connections of every load: each sends its next request when the previous answer is read. */
export const CONCURRENCY = 8;

export const round1 = (value) => Math.round(value * 10) / 10;
export const round2 = (value) => Math.round(value * 100) / 100;
export const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export function sh(command, args, options) {
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

/** The installed version of a package in dir/node_modules, or undefined. */
export const versionOf = (dir, name) => {
  try {
    return JSON.parse(readFileSync(path.join(dir, 'node_modules', name, 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
};

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** One GET on a fresh connection; resolves to the status, or undefined when nothing listens yet. */
function probe(url) {
  return new Promise((resolve) => {
    const request = http.get(url, { agent: false, timeout: 2000 }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode));
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(undefined));
  });
}

/**
 * The app's `npm start` (`node [flags] dist/server.js`) as node arguments, so the benchmark runs the
 * process a user starts in production, without npm in front of it.
 */
export function startCommand(dir) {
  const start = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')).scripts?.start ?? '';
  const words = start.trim().split(/\s+/);
  if (words[0] !== 'node' || words.length < 2) throw new Error(`the app's start script is not "node [flags] <script>": ${JSON.stringify(start)}`);
  return { script: words.at(-1), nodeArgs: words.slice(1, -1) };
}

/** A clean environment: only what each server is given, nothing inherited by accident (REDIS_URL, LOG_LEVEL…). */
export const baseEnv = () => ({ PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'production' });

/**
 * Spawns `node <nodeArgs> <script>` in cwd with env and PORT (stdout to onStdout, else dropped), and polls readyPath every 5 ms until it answers
 * 200. Returns the process, its url and the time from spawn to that first 200.
 */
export async function startServer({ name, cwd, script, env, readyPath, nodeArgs = [], onStdout }) {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [...nodeArgs, script], {
    cwd,
    env: { ...env, HOST: '127.0.0.1', PORT: String(port) },
    stdio: ['ignore', onStdout ? 'pipe' : 'ignore', 'pipe'],
  });
  child.stdout?.on('data', onStdout);
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-8000)));
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${name} exited (${child.exitCode ?? child.signalCode}) before answering:\n${stderr}`);
    const status = await probe(`${url}${readyPath}`);
    if (status === 200) break;
    if (status !== undefined) throw new Error(`${name}: GET ${readyPath} answered ${status} at start-up:\n${stderr}`);
    if (performance.now() - started > 60_000) throw new Error(`${name} did not answer within 60 s:\n${stderr}`);
    await sleep(5);
  }
  const coldStartMs = performance.now() - started;
  return {
    name,
    url,
    pid: child.pid,
    coldStartMs,
    stderr: () => stderr,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => {
          clearTimeout(force);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** CPU time (user + system, ms) a live process has used so far, from /proc/<pid>/stat. */
export function cpuMsOf(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/** Peak and current resident set of a live process, in MiB, from /proc (Linux). */
export function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
  return { peakMiB: round1(kib('VmHWM') / 1024), endMiB: round1(kib('VmRSS') / 1024) };
}

/** The load generator process; load() sends it one job and waits for the figures. */
export function startLoadWorker(root) {
  const worker = fork(path.join(root, 'bench/lib/load-worker.mjs'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  let nextId = 0;
  const pending = new Map();
  worker.on('message', (message) => {
    const job = pending.get(message.id);
    pending.delete(message.id);
    if (message.ok) job.resolve(message.result);
    else job.reject(new Error(`load failed on ${job.url}: ${message.error}`));
  });
  worker.on('exit', (code) => {
    for (const job of pending.values()) job.reject(new Error(`the load worker exited (${code})`));
    pending.clear();
  });
  return {
    /**
     * GETs url `count` times; with refreshTokens (one per connection), POSTs each as a refresh
     * instead; with body, POSTs that body every time.
     */
    load: (url, headers, count, refreshTokens, body) =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        pending.set(id, { resolve, reject, url });
        worker.send({ id, url, headers, count, concurrency: CONCURRENCY, refreshTokens, body });
      }),
    stop: () => {
      if (worker.connected) worker.disconnect();
    },
    pid: worker.pid,
  };
}
