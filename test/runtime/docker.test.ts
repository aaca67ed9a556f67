import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureNodeImage, podman, PODMAN_LIMITS } from '../container/podman.js';
import { freePort } from '../helpers/app-process.js';
import { FIXTURES_DIR, WORK_DIR } from '../helpers/fixtures.js';
import { runCli } from '../helpers/run-cli.js';

/**
 * The generated Dockerfile, built and run with podman (Debian's package) on a SQLite app. No
 * container registry is reachable here, so node:24-bookworm-slim is a local stand-in built from
 * Debian and the npm registry's Node (test/container/build-node-image.sh).
 */
const dir = path.join(WORK_DIR, 'docker-minimal');
const tag = `gatekit-docker-test-${process.pid}`;
const appImage = `localhost/${tag}:latest`;
const migrateImage = `localhost/${tag}-migrate:latest`;
const volume = `${tag}-data`;
const container = `${tag}-app`;
const DATABASE_URL = 'file:/data/app.db';

beforeAll(() => {
  ensureNodeImage('24');
  rmSync(dir, { recursive: true, force: true });
  const generated = runCli([dir, '--config', path.join(FIXTURES_DIR, 'minimal.json'), '--yes', '--no-install', '--no-git', '--pm', 'npm']);
  if (generated.status !== 0) throw new Error(`generating failed:\n${generated.stderr}`);
  // The Dockerfile installs with `npm ci`, which needs the lockfile a real install leaves behind.
  const lock = spawnSync('npm', ['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: dir, encoding: 'utf8' });
  if (lock.status !== 0) throw new Error(`npm install --package-lock-only failed:\n${lock.stderr}`);
  // --format docker keeps HEALTHCHECK (the OCI image format has no field for it).
  const build = (target: string[], image: string) => podman(['build', '--format', 'docker', '--pull=never', ...PODMAN_LIMITS, ...target, '-t', image, '.'], { cwd: dir });
  const started = Date.now();
  build([], appImage);
  console.log(`docker build (app image): ${((Date.now() - started) / 1000).toFixed(0)} s`);
  build(['--target', 'migrate'], migrateImage);
  podman(['volume', 'create', volume]);
}, 2_400_000);

afterAll(() => {
  spawnSync('podman', ['rm', '-f', container]);
  spawnSync('podman', ['volume', 'rm', '-f', volume]);
  spawnSync('podman', ['rmi', '-f', appImage, migrateImage]);
});

describe('the Dockerfile of a SQLite app, built and run with podman', () => {
  it('makes an app image that runs as the unprivileged user, with a HEALTHCHECK on /healthz and without development packages', () => {
    const [config] = JSON.parse(podman(['image', 'inspect', appImage]));
    expect(config.Config.User).toBe('node');
    expect(config.Healthcheck.Test.join(' ')).toMatch(/^CMD node -e fetch\(`http:\/\/127\.0\.0\.1:\$\{process\.env\.PORT\}\/healthz`\)/);
    console.log(`app image size: ${(config.Size / 1e6).toFixed(0)} MB (the Node base image alone: ${(JSON.parse(podman(['image', 'inspect', 'docker.io/library/node:24-bookworm-slim']))[0].Size / 1e6).toFixed(0)} MB)`);
    const installed = (names: string[]) =>
      podman(['run', '--rm', ...PODMAN_LIMITS, '--entrypoint', 'sh', appImage, '-c', `for p in ${names.join(' ')}; do [ -e node_modules/$p ] && echo $p; done; true`])
        .split('\n')
        .filter(Boolean);
    expect(installed(['express', '@prisma/client', '@libsql/client'])).toEqual(['express', '@prisma/client', '@libsql/client']);
    // Not even prisma and typescript, the optional peers of @prisma/client.
    expect(installed(['typescript', 'vitest', 'tsx', 'prisma', '@biomejs/biome', 'effect'])).toEqual([]);
  });

  it('applies the migrations as a separate step (the migrate image) to the database on the volume', () => {
    const output = podman(['run', '--rm', ...PODMAN_LIMITS, '-v', `${volume}:/data`, '-e', `DATABASE_URL=${DATABASE_URL}`, migrateImage]);
    expect(output).toMatch(/Applied 2 migration\(s\): \d+_base, \d+_jwt/);
    const again = podman(['run', '--rm', ...PODMAN_LIMITS, '-v', `${volume}:/data`, '-e', `DATABASE_URL=${DATABASE_URL}`, migrateImage]);
    expect(again).toContain('Database is up to date.');
  }, 300_000);

  it('starts as a non-root process on the migrated volume, answers /healthz and /readyz, and its HEALTHCHECK passes', async () => {
    const port = await freePort();
    const started = Date.now();
    podman(['run', '-d', '--name', container, ...PODMAN_LIMITS, '-p', `127.0.0.1:${port}:3000`, '-v', `${volume}:/data`,
      '-e', `DATABASE_URL=${DATABASE_URL}`, '-e', `JWT_SECRET=${randomBytes(48).toString('base64')}`, appImage]);
    let status = 0;
    while (status !== 200 && Date.now() - started < 60_000) {
      status = await fetch(`http://127.0.0.1:${port}/healthz`).then((response) => response.status, () => 0);
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(status, podman(['logs', container])).toBe(200);
    console.log(`cold start (podman run to the first 200 on /healthz): ${Date.now() - started} ms`);
    // /readyz reads the users table: the app sees the database the migrate step made.
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    expect(podman(['exec', container, 'id', '-u']).trim()).toBe('1000');
    // Runs the image's own HEALTHCHECK command now (podman schedules it with systemd timers otherwise).
    podman(['healthcheck', 'run', container]);
    // SIGTERM reaches node itself (no shell or npm in between), which shuts down cleanly.
    podman(['stop', '--time', '20', container]);
    expect(JSON.parse(podman(['inspect', container]))[0].State.ExitCode).toBe(0);
  }, 120_000);
});
