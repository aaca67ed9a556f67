import { describe, expect, it } from 'vitest';
import { mergeChoices } from '../../src/core/choices.js';
import { composeEnv } from '../../src/core/compose-env.js';
import { composeMigrations } from '../../src/core/compose-migrations.js';
import { composeOpenApi, listEndpoints } from '../../src/core/compose-openapi.js';
import { composePackageJson } from '../../src/core/compose-package-json.js';
import { generateProject } from '../../src/core/generate-project.js';
import { tsLiteral } from '../../src/core/handlebars.js';
import { createRegistry, loadBuiltinModules } from '../../src/core/registry.js';
import { resolveSelection } from '../../src/core/resolve-selection.js';
import { PACKAGE_VERSIONS, resolvePackageVersion } from '../../src/core/versions.js';

const registry = createRegistry(loadBuiltinModules());
const modules = resolveSelection(mergeChoices({ toggles: { orgs: false, pages: false } }), registry);

describe('package.json', () => {
  it('merges every module with versions from the one table, sorted, database packages included', () => {
    const pkg = JSON.parse(composePackageJson(modules, 'demo', 'sqlite'));
    expect(pkg.name).toBe('demo');
    expect(pkg.engines.node).toBe('^20.19 || ^22.12 || >=24');
    expect(pkg.dependencies.bcrypt).toBe(PACKAGE_VERSIONS.bcrypt);
    expect(pkg.dependencies['@prisma/adapter-libsql']).toBe(PACKAGE_VERSIONS['@prisma/adapter-libsql']);
    expect(pkg.dependencies['@libsql/client']).toBe('^0.18.0');
    expect(pkg.dependencies['@prisma/driver-adapter-utils']).toBeUndefined();
    expect(pkg.dependencies.libsql).toBeUndefined();
    // The adapter asks for @libsql/client ^0.17, which leaks files; every package manager is told
    // 0.18. vitest is kept on vite 8.3: 8.4.0 lists an optional package the registry does not have.
    expect(pkg.overrides).toEqual({ '@libsql/client': '^0.18.0', vite: '~8.3.8' });
    // pnpm 11+ reads no `pnpm` field (and refuses to run scripts while it holds overrides): its
    // overrides are in pnpm-workspace.yaml (test/unit/package-managers.test.ts).
    expect(pkg.pnpm).toBeUndefined();
    expect(pkg.resolutions).toEqual(pkg.overrides);
    // jose signs and checks access tokens with key pairs (JWT_ALGORITHM EdDSA or ES256, 4.1).
    expect(pkg.dependencies.jose).toBe(PACKAGE_VERSIONS.jose);
    expect(pkg.devDependencies.jose).toBeUndefined();
    expect(pkg.scripts['keys:rotate']).toBe('tsx scripts/rotate-keys.ts');
    expect(pkg.dependencies['better-sqlite3']).toBeUndefined();
    expect(pkg.dependencies.pg).toBeUndefined();
    expect(Object.keys(pkg.dependencies)).toEqual(Object.keys(pkg.dependencies).sort());
    for (const script of ['dev', 'build', 'start', 'test', 'db:migrate']) expect(pkg.scripts[script]).toBeDefined();
    const postgres = JSON.parse(composePackageJson(modules, 'demo', 'postgresql'));
    expect(postgres.dependencies.pg).toBeDefined();
    expect(postgres.dependencies['better-sqlite3']).toBeUndefined();
    expect(postgres.overrides).toEqual({ vite: '~8.3.8' });
  });

  it('fails loudly on a package missing from the version table, and honours name@range', () => {
    expect(() => resolvePackageVersion('left-pad')).toThrow(/left-pad/);
    expect(resolvePackageVersion('@scope/pkg@^1.2.0')).toEqual(['@scope/pkg', '^1.2.0']);
  });
});

describe('env files', () => {
  it('documents every variable and generates a fresh secret of at least 256 bits', () => {
    const first = composeEnv(modules, 'sqlite');
    const second = composeEnv(modules, 'sqlite');
    const secret = (dev: string) => /^JWT_SECRET=(.*)$/m.exec(dev)![1]!;
    expect(Buffer.from(secret(first.dev), 'base64url').length * 8).toBeGreaterThanOrEqual(256);
    expect(secret(first.dev)).not.toBe(secret(second.dev));
    expect(first.example).toContain('JWT_SECRET=replace-with-a-random-secret');
    for (const variable of first.variables) {
      expect(first.example).toMatch(new RegExp(`# .+\\n${variable.name}=`));
    }
    expect(first.dev).toContain('DATABASE_URL=file:./dev.db');
  });

  it('generates a fresh KEY_ENCRYPTION_KEYS entry (id:base64, 32 bytes) and leaves it empty in .env.example', () => {
    const first = composeEnv(modules, 'sqlite');
    const second = composeEnv(modules, 'sqlite');
    const entry = (dev: string) => JSON.parse(/^KEY_ENCRYPTION_KEYS=(".*")$/m.exec(dev)![1]!) as string;
    expect(entry(first.dev)).toMatch(/^k1:[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(entry(first.dev).slice(3), 'base64')).toHaveLength(32);
    expect(entry(first.dev)).not.toBe(entry(second.dev));
    expect(first.example).toMatch(/# Encrypts the private signing keys .*\nKEY_ENCRYPTION_KEYS=\n/);
    expect(first.dev).toContain('JWT_ALGORITHM=HS256');
  });

  it('takes overrides for the development .env', () => {
    const env = composeEnv(modules, 'postgresql', { DATABASE_URL: 'postgresql://me@db/app' });
    expect(env.dev).toContain('DATABASE_URL=postgresql://me@db/app');
    expect(env.example).toContain('DATABASE_URL=postgresql://postgres:postgres@localhost:5432/app');
  });
});

describe('migrations', () => {
  it('gives each module with tables its own folder, in dependency order', () => {
    const files = composeMigrations(modules, 'sqlite', new Date('2026-01-02T03:04:05Z'));
    expect(files.map(([file]) => file)).toEqual([
      'prisma/migrations/migration_lock.toml',
      'prisma/migrations/20260102030405_base/migration.sql',
      'prisma/migrations/20260102030406_jwt/migration.sql',
    ]);
    expect(files[0]![1]).toContain('provider = "sqlite"');
  });
});

describe('OpenAPI', () => {
  it('merges fragments and lists endpoints of exactly the chosen modules', () => {
    const document = composeOpenApi(modules, 'demo');
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.title).toBe('demo');
    const routes = listEndpoints(document).map((endpoint) => `${endpoint.method} ${endpoint.path}`);
    expect(routes).toContain('POST /api/auth/register');
    expect(routes).toContain('GET /healthz');
    const baseOnly = composeOpenApi(modules.filter((module) => module.manifest.id === 'base'), 'demo');
    expect(listEndpoints(baseOnly).map((endpoint) => endpoint.path)).not.toContain('/api/auth/register');
  });
});

describe('tsLiteral', () => {
  it('writes values in the generated code style', () => {
    expect(tsLiteral([])).toBe('[]');
    expect(tsLiteral(['password', "it's"])).toBe("['password', 'it\\'s']");
    expect(tsLiteral([{ id: 'github', name: 'GitHub' }])).toBe("[\n  { id: 'github', name: 'GitHub' },\n]");
  });
});

describe('next steps', () => {
  const steps = (envOverrides: Record<string, string>) =>
    generateProject({ projectName: 'steps', choices: mergeChoices({ auth: ['jwt'], oauth: ['github'], install: false, git: false }), registry, envOverrides }).nextSteps.notes.join('\n');

  // Issue 31, item 9: the passkey note sat between `npm run db:migrate` and `npm run dev`.
  it('list the commands first and together, then the notes of the modules chosen', () => {
    const choices = mergeChoices({ auth: ['jwt', 'passkey', 'magic-link'], oauth: ['github'], install: false, git: false, pm: 'pnpm' });
    const { commands, notes } = generateProject({ projectName: 'steps', directory: 'apps/steps', choices, registry }).nextSteps;
    expect(commands).toEqual(['cd apps/steps', 'pnpm install', 'pnpm db:migrate', 'pnpm dev']);
    expect(notes).toEqual([
      expect.stringMatching(/^Passkeys are bound to WEBAUTHN_RP_ID/),
      expect.stringMatching(/^Set SMTP_\* and MAIL_FROM/),
      expect.stringMatching(/^GitHub: create credentials at/),
    ]);
  });

  it("name each OAuth provider's console and the callback URL under the development .env's API_URL, else its PORT", () => {
    expect(steps({})).toContain('GitHub: create credentials at https://github.com/settings/developers with the callback URL http://localhost:3000/api/auth/github/callback');
    expect(steps({ PORT: '4100' })).toContain('callback URL http://localhost:4100/api/auth/github/callback');
    expect(steps({ API_URL: 'https://auth.example.com' })).toContain('callback URL https://auth.example.com/api/auth/github/callback');
  });
});
