import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Socket } from 'node:net';
import { freePort } from './app-process.js';

/**
 * A redis-server of the test's own on a free port (no persistence), so a test can stop and
 * restart it without touching the shared one on 6379. Stopped by the PID it wrote, never by name.
 */
export interface OwnRedis {
  port: number;
  url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** One command over a plain socket; resolves with the first line of the reply. */
  command(...args: string[]): Promise<string>;
  destroy(): Promise<void>;
}

const encode = (parts: string[]) => `*${parts.length}\r\n${parts.map((part) => `$${Buffer.byteLength(part)}\r\n${part}\r\n`).join('')}`;

function send(port: number, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = new Socket();
    let reply = '';
    socket.setTimeout(3000, () => socket.destroy(new Error('redis timed out')));
    socket.once('error', reject);
    socket.connect(port, '127.0.0.1', () => socket.write(encode(args)));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      const lines = reply.split('\r\n');
      const first = lines[0]!;
      // Bulk strings ($n) carry their value on the next line.
      if (lines.length >= 2 && (!first.startsWith('$') || first === '$-1' || lines.length >= 3)) {
        socket.end();
        resolve(first.startsWith('$') && first !== '$-1' ? lines[1]! : first);
      }
    });
  });
}

export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'gatekit-redis-'));
  const pidFile = path.join(dir, 'redis.pid');
  const pid = () => Number(readFileSync(pidFile, 'utf8').trim());
  const waitFor = async (up: boolean) => {
    for (const deadline = Date.now() + 10_000; ; ) {
      const answers = await send(port, ['PING']).then(() => true, () => false);
      if (answers === up) return;
      if (Date.now() > deadline) throw new Error(`redis on ${port} did not ${up ? 'start' : 'stop'} within 10 s`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const redis: OwnRedis = {
    port,
    url: `redis://127.0.0.1:${port}`,
    start: async () => {
      const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'yes', '--pidfile', pidFile, '--dir', dir, '--logfile', path.join(dir, 'redis.log')];
      const result = spawnSync('redis-server', args, { encoding: 'utf8' });
      if (result.status !== 0) throw new Error(`redis-server failed: ${result.stderr}`);
      await waitFor(true);
    },
    stop: async () => {
      process.kill(pid(), 'SIGKILL');
      await waitFor(false);
      rmSync(pidFile, { force: true });
    },
    command: (...args) => send(port, args),
    destroy: async () => {
      if (existsSync(pidFile)) await redis.stop().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await redis.start();
  return redis;
}
