import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/run-cli.js';
import { call, runAppUntilExit, startAppProcess, type AppProcess } from '../helpers/app-process.js';
import { TEST_JWT_SECRET, freshSqliteDatabase } from '../helpers/running-app.js';
import { describeJwtApp } from './jwt-app.scenarios.js';
import { sqliteFixtureWithChecks } from './project-checks.js';

/** The body of the first fenced block after `heading` in the README, and the block's language. */
function readmeBlock(readme: string, heading: string, language: string, nth = 0): string {
  const start = readme.indexOf(`\n${heading}\n`);
  expect(start, `README has no "${heading}"`).toBeGreaterThan(-1);
  const blocks = [...readme.slice(start).matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))];
  expect(blocks.length, `no ${language} block after "${heading}"`).toBeGreaterThan(nth);
  return blocks[nth]![1]!;
}

describe('minimal fixture (jwt, SQLite)', () => {
  const fixture = sqliteFixtureWithChecks('minimal');
  describe('the running server', () => {
    describeJwtApp({ fixture, databaseUrl: () => `file:${path.join(fixture().dir, 'dev.db')}`, redisDb: 13 });
  });

  /**
   * A copy of the app (sources, built files; node_modules linked) with the README's own-route recipe
   * applied exactly as written, built and started; the README's curl walkthrough then runs against it.
   */
  describe("the README's recipes, followed on a copy of the app", () => {
    let dir: string;
    let readme: string;
    let app: AppProcess;
    let env: Record<string, string>;

    beforeAll(async () => {
      const source = fixture().dir;
      dir = path.join(path.dirname(source), 'minimal-readme');
      rmSync(dir, { recursive: true, force: true });
      cpSync(source, dir, { recursive: true, filter: (file) => !/node_modules$|\.db(-wal|-shm|-journal)?$|\.gatekit-/.test(file) });
      symlinkSync(path.join(source, 'node_modules'), path.join(dir, 'node_modules'));
      readme = readFileSync(path.join(dir, 'README.md'), 'utf8');

      const routes = readmeBlock(readme, '## Add your own route', 'ts', 0);
      const file = /^\/\/ (src\/modules\/\S+\.ts)\n/.exec(routes)?.[1];
      expect(file).toBe('src/modules/notes/notes.routes.ts');
      mkdirSync(path.dirname(path.join(dir, file!)), { recursive: true });
      writeFileSync(path.join(dir, file!), routes);
      const [importLine, mountLine] = readmeBlock(readme, '## Add your own route', 'ts', 1).split('\n').filter(Boolean);
      const appFile = path.join(dir, 'src/app.ts');
      const appSource = readFileSync(appFile, 'utf8');
      const lastImport = appSource.lastIndexOf('\nimport ');
      const afterLastImport = appSource.indexOf('\n', lastImport + 1) + 1;
      let edited = `${appSource.slice(0, afterLastImport)}${importLine}\n${appSource.slice(afterLastImport)}`;
      expect(edited).toContain('  app.use(notFoundHandler);');
      edited = edited.replace('  app.use(notFoundHandler);', `  ${mountLine}\n  app.use(notFoundHandler);`);
      writeFileSync(appFile, edited);

      const build = spawnSync('npm', ['run', 'build'], { cwd: dir, encoding: 'utf8' });
      expect(build.status, `${build.stdout}${build.stderr}`).toBe(0);
      env = { JWT_SECRET: TEST_JWT_SECRET, DATABASE_URL: freshSqliteDatabase(fixture(), 'readme'), BCRYPT_COST: '4', RATE_LIMIT_MAX: '0' };
      app = await startAppProcess(dir, env);
    }, 180_000);

    afterAll(async () => {
      await app?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('the curl walkthrough registers, signs in and reads /api/auth/me, and the own route answers 401 without the token and 200 with it', async () => {
      const email = `readme${Date.now()}@example.com`;
      const walkthrough = readmeBlock(readme, '### Try it with curl', 'sh');
      const ownRoute = readmeBlock(readme, '## Add your own route', 'sh');
      expect(walkthrough).toContain('ada@example.com');
      expect(walkthrough).toContain('http://localhost:3000');
      const script = `set -e\n${walkthrough}\n${ownRoute}`.replaceAll('http://localhost:3000', app.url).replaceAll('ada@example.com', email);
      const result = spawnSync('sh', ['-c', script], { encoding: 'utf8', timeout: 60_000 });
      expect(result.status, result.stderr).toBe(0);
      const [registered, me, hello] = result.stdout.trim().split('\n').map((line) => JSON.parse(line));
      expect(registered).toMatchObject({ tokenType: 'Bearer', user: { email, name: 'Ada' } });
      expect(me).toEqual({ user: expect.objectContaining({ email, id: registered.user.id }) });
      expect(hello).toEqual({ message: 'Hello, Ada', userId: registered.user.id });

      const anonymous = await call(app.url, '/api/notes/hello');
      expect(anonymous.status).toBe(401);
      expect(anonymous.body.error.code).toBe('UNAUTHENTICATED');
      const forged = await call(app.url, '/api/notes/hello', { token: `${registered.token}x` });
      expect(forged.status).toBe(401);
    });

    it('a port already in use is one line naming the port and PORT, exit 1, and no "listening"', async () => {
      const result = await runAppUntilExit(dir, { ...env, PORT: String(app.port) });
      expect(result.code).toBe(1);
      const lines = result.output.trim().split('\n');
      expect(lines, result.output).toHaveLength(1);
      expect(JSON.parse(lines[0]!).msg).toBe(`port ${app.port} is in use: another process is listening on it; stop that process or set PORT to a free port`);
      expect(result.output).not.toContain('listening"');
      expect(result.output).not.toContain('[redacted]');
    });

    it('PORT=abc and a missing JWT_SECRET stop it with what each needs, not a schema library message', async () => {
      // API_URL set, since the harness would derive it from the port.
      const result = await runAppUntilExit(dir, { ...env, PORT: 'abc', API_URL: 'http://127.0.0.1:3000', JWT_SECRET: '' });
      expect(result.code).toBe(1);
      expect(result.output).toContain('PORT must be a whole number from 1 to 65535 (got "abc")');
      expect(result.output).toContain('JWT_SECRET is required: a random string of at least 32 characters; generate one with');
      expect(result.output).not.toMatch(/expected|received|NaN/);
    });

    it("computes upgrades with the schema engine of the app's own Prisma version", () => {
      const version = (root: string, name: string) => JSON.parse(readFileSync(path.join(root, 'node_modules', name, 'package.json'), 'utf8')).version;
      // create-gatekit's WebAssembly build of the engine (upgrade's diff); the app no longer carries one.
      expect(version(ROOT, '@prisma/schema-engine-wasm')).toBe(version(dir, '@prisma/engines-version'));
      expect(existsSync(path.join(dir, 'node_modules/@prisma/schema-engine-wasm'))).toBe(false);
    });
  });
});
