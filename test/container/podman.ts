import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/run-cli.js';

/**
 * Flags podman needs on our machines, found by trying (podman 4.3, Debian bookworm, as root):
 * - crun refuses hybrid cgroups ("cgroups in hybrid mode not supported"); runc runs there.
 * - podman's default open-file and process limits for containers (1048576) are above what these
 *   machines grant ("setrlimit RLIMIT_NOFILE: Operation not permitted"), so ask for less.
 */
export const PODMAN_GLOBAL = existsSync('/usr/bin/runc') ? ['--runtime', 'runc'] : [];
export const PODMAN_LIMITS = ['--ulimit', 'nofile=20000:20000', '--ulimit', 'nproc=4096:4096'];

export function podman(args: string[], options: { cwd?: string; timeout?: number } = {}): string {
  const result = spawnSync('podman', [...PODMAN_GLOBAL, ...args], { encoding: 'utf8', timeout: options.timeout ?? 900_000, cwd: options.cwd });
  if (result.status !== 0) {
    throw new Error(`podman ${args.join(' ')} failed (exit ${result.status}):\n${String(result.stdout).slice(-3000)}\n${String(result.stderr).slice(-3000)}`);
  }
  return result.stdout;
}

/** The stand-in for node:<major>-bookworm-slim (see build-node-image.sh), built once and cached. */
export function ensureNodeImage(major: string): string {
  const image = `docker.io/library/node:${major}-bookworm-slim`;
  const result = spawnSync('bash', [path.join(ROOT, 'test/container/build-node-image.sh'), major, image], {
    encoding: 'utf8',
    timeout: 1_800_000,
    env: { ...process.env, PODMAN_GLOBAL_FLAGS: PODMAN_GLOBAL.join(' '), PODMAN_BUILD_FLAGS: PODMAN_LIMITS.join(' ') },
  });
  if (result.status !== 0) throw new Error(`building the stand-in ${image} failed:\n${result.stdout}\n${result.stderr}`);
  return image;
}
