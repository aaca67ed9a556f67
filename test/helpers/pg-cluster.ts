import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './app-process.js';

/**
 * A PostgreSQL cluster of the test's own, on its own port and data folder, so a test can stop,
 * start and freeze it without touching the shared server on 5432. PostgreSQL refuses to run as
 * root, so as root its programs run as the `postgres` user (`runuser`).
 */
export interface PgCluster {
  port: number;
  /** postgresql://postgres@127.0.0.1:<port>/postgres */
  url: string;
  start(): void;
  /** A fast shutdown: connections are cut, the port closes. */
  stop(): void;
  /** SIGSTOP to the postmaster and every backend: connections open and queries never answer. */
  freeze(): void;
  thaw(): void;
  /** Stops the cluster (thawing it first) and removes its folder. */
  destroy(): void;
}

function binDir(): string {
  const fromPath = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  if (fromPath.status === 0 && existsSync(path.join(fromPath.stdout.trim(), 'initdb'))) return fromPath.stdout.trim();
  const versions = existsSync('/usr/lib/postgresql') ? execFileSync('ls', ['/usr/lib/postgresql'], { encoding: 'utf8' }).split('\n').filter(Boolean) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new Error('no PostgreSQL server binaries found (pg_config --bindir, /usr/lib/postgresql/*/bin)');
  return `/usr/lib/postgresql/${newest}/bin`;
}

function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

export async function createPgCluster(): Promise<PgCluster> {
  const bin = binDir();
  const user = postgresUser();
  const dir = mkdtempSync(path.join(tmpdir(), 'gatekit-pg-'));
  const data = path.join(dir, 'data');
  if (user) chownSync(dir, user.uid, user.gid);
  const run = (program: string, args: string[]) => {
    const command = user ? 'runuser' : path.join(bin, program);
    const fullArgs = user ? ['-u', 'postgres', '--', path.join(bin, program), ...args] : args;
    const result = spawnSync(command, fullArgs, { encoding: 'utf8', timeout: 120_000 });
    if (result.status !== 0) throw new Error(`${program} ${args.join(' ')} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
  };
  run('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8']);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
  const postmasterPid = () => Number(readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children = (pid: number) =>
    spawnSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
      .stdout.split('\n')
      .map((line) => Number(line.trim()))
      .filter((child) => child > 0);
  /** The postmaster first (so it forks no new backend meanwhile), then each backend; one that just exited is skipped. */
  const signalAll = (signal: NodeJS.Signals) => {
    const pid = postmasterPid();
    process.kill(pid, signal);
    for (const child of children(pid)) {
      try {
        process.kill(child, signal);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
      }
    }
  };
  let frozen = false;
  const cluster: PgCluster = {
    port,
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    start: () => run('pg_ctl', ['-D', data, '-o', options, '-l', path.join(dir, 'server.log'), '-w', '-t', '60', 'start']),
    stop: () => run('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '60', 'stop']),
    freeze: () => {
      signalAll('SIGSTOP');
      frozen = true;
    },
    thaw: () => {
      signalAll('SIGCONT');
      frozen = false;
    },
    destroy: () => {
      try {
        if (frozen) cluster.thaw();
        if (existsSync(path.join(data, 'postmaster.pid'))) cluster.stop();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
  cluster.start();
  return cluster;
}
