import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * The environment for a generated project's processes: ours minus the test runner's own
 * variables (VITEST*, NODE_ENV=test, colours), so the project behaves as when a person runs it.
 */
export function childEnv(env: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  for (const key of Object.keys(base)) {
    if (key.startsWith('VITEST') || ['NODE_ENV', 'TEST', 'FORCE_COLOR'].includes(key)) delete base[key];
  }
  return { ...base, ...env };
}

export interface AppProcess {
  url: string;
  port: number;
  child: ChildProcess;
  /** Everything the process printed so far (stdout and stderr). */
  output(): string;
  /** Resolves once the output matches (it arrives through a pipe, possibly after the answer); rejects after timeoutMs. */
  waitForOutput(pattern: RegExp | string, timeoutMs?: number): Promise<void>;
  stop(): Promise<number | null>;
}

/** A generated app's `npm start` (`node [flags] dist/server.js`) as node arguments: the process users run, without npm. */
function startArguments(dir: string): string[] {
  const start = (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { scripts?: { start?: string } }).scripts?.start ?? '';
  const [command, ...rest] = start.trim().split(/\s+/);
  if (command !== 'node' || rest.length === 0) throw new Error(`the app's start script is not "node [flags] <script>": ${JSON.stringify(start)}`);
  return rest;
}

/** The app's `npm start` on 127.0.0.1 (env.PORT, else a free port), collecting its output. */
async function spawnServer(dir: string, env: Record<string, string>) {
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const child = spawn(process.execPath, startArguments(dir), {
    cwd: dir,
    env: childEnv({ LOG_LEVEL: 'info', HOST: '127.0.0.1', PORT: String(port), API_URL: `http://127.0.0.1:${port}`, ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const collected = { text: '' };
  child.stdout.on('data', (chunk: Buffer) => (collected.text += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (collected.text += chunk.toString()));
  return { port, child, collected };
}

/** Starts a generated app's built server and waits until /healthz answers. */
export async function startAppProcess(dir: string, env: Record<string, string>): Promise<AppProcess> {
  const { port, child, collected } = await spawnServer(dir, env);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`app exited with ${child.exitCode}:\n${collected.text}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`app did not answer /healthz within 30 s:\n${collected.text}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    port,
    child,
    output: () => collected.text,
    waitForOutput: async (pattern, timeoutMs = 3000) => {
      const matches = () => (typeof pattern === 'string' ? collected.text.includes(pattern) : pattern.test(collected.text));
      for (const deadline = Date.now() + timeoutMs; !matches(); ) {
        if (Date.now() > deadline) throw new Error(`the app never printed ${pattern}:\n${collected.text.slice(-2000)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Runs the server expecting it to stop by itself (e.g. refused configuration). */
export async function runAppUntilExit(dir: string, env: Record<string, string>, timeoutMs = 20_000): Promise<{ code: number | null; output: string; port: number }> {
  const { port, child, collected } = await spawnServer(dir, env);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));
  clearTimeout(timer);
  return { code, output: collected.text, port };
}

/** fetch with JSON in and out; redirects are answers to look at, never followed. */
export async function call(
  url: string,
  path: string,
  init: { method?: string; json?: unknown; token?: string; headers?: Record<string, string>; body?: string; redirect?: RequestRedirect } = {},
): Promise<{ status: number; headers: Headers; body: any }> {
  const response = await fetch(`${url}${path}`, {
    redirect: init.redirect ?? 'manual',
    method: init.method ?? (init.json === undefined && init.body === undefined ? 'GET' : 'POST'),
    headers: {
      ...(init.json === undefined ? {} : { 'content-type': 'application/json' }),
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...init.headers,
    },
    body: init.json === undefined ? init.body : JSON.stringify(init.json),
  });
  const text = await response.text();
  let body: any = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON; keep the text
  }
  return { status: response.status, headers: response.headers, body };
}
