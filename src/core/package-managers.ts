import { spawnSync } from 'node:child_process';
import type { PackageManager } from './choices.js';
import { UsageError } from './errors.js';
import { compareTags, CURRENT_RELEASE } from './releases.js';

/**
 * What each package manager needs to install a generated app as generated (docs/package-managers.md):
 * its own settings file, the install command that also works with CI set, and a check, run before
 * anything is written, that it is there at all.
 */

/**
 * Packages in a generated app whose install scripts run under npm, keyed by the direct dependency
 * that brings them in. pnpm 10 and later run no dependency's install script it was not told about,
 * and pnpm 11+ fails the install on one (ERR_PNPM_IGNORED_BUILDS), so these are approved by name.
 */
const INSTALL_SCRIPTS: readonly { name: string; broughtBy: string }[] = [
  { name: 'prisma', broughtBy: 'prisma' },
  { name: '@prisma/engines', broughtBy: 'prisma' },
  { name: 'esbuild', broughtBy: 'tsx' },
  { name: 'bcrypt', broughtBy: 'bcrypt' },
  { name: 'better-sqlite3', broughtBy: 'better-sqlite3' },
];

/** A YAML key or value, quoted when it is not a plain word ('@prisma/engines', '^0.18.0'). */
function yamlScalar(text: string): string {
  return /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(text) ? text : `'${text.replaceAll("'", "''")}'`;
}

function yamlMap(entries: [string, string][]): string {
  return entries.map(([key, value]) => `  ${yamlScalar(key)}: ${value}\n`).join('');
}

/**
 * The chosen package manager's own settings file, if it needs one.
 * - pnpm: pnpm-workspace.yaml with the approved builds and the forced versions (pnpm 11+ reads
 *   settings only from this file; it refuses to run scripts while package.json has `pnpm.overrides`).
 * - yarn: .yarnrc.yml with the node_modules linker; Plug'n'Play (yarn 2+'s default) breaks
 *   `prisma generate` and tools that resolve files in node_modules. Yarn 1 ignores the file.
 *   And .yarnrc, which only yarn 1 reads, with `ignore-engines true`: yarn 1 refuses a dependency
 *   whose `engines` does not match, where npm, pnpm and bun warn, and Prisma 7 brings
 *   @prisma/streams-local, which declares Node.js >= 22 (used only by `prisma dev`).
 */
export function packageManagerFiles(pm: PackageManager, packages: string[], overrides: Record<string, string>, release: string = CURRENT_RELEASE): [path: string, content: string][] {
  if (pm === 'pnpm') {
    const builds = INSTALL_SCRIPTS.filter((entry) => packages.includes(entry.broughtBy)).map((entry) => entry.name);
    const allowBuilds = `# Dependencies whose install scripts pnpm may run; pnpm runs no others.\nallowBuilds:\n${yamlMap(builds.sort().map((name) => [name, 'true']))}`;
    const forced = Object.entries(overrides);
    const overridesYaml = forced.length > 0 ? `overrides:\n${yamlMap(forced.map(([name, version]) => [name, yamlScalar(version)]))}` : '';
    return [['pnpm-workspace.yaml', [allowBuilds, overridesYaml].filter(Boolean).join('\n')]];
  }
  if (pm === 'yarn') {
    const yarnrcYml: [string, string] = ['.yarnrc.yml', '# Plain node_modules: Prisma and other tools do not support Plug\'n\'Play.\nnodeLinker: node-modules\n'];
    // Release 4.0 wrote no .yarnrc; `upgrade` renders a 4.0 app again as it was (docs/upgrade.md).
    return compareTags(release, YARN_1_SETTINGS_SINCE) < 0 ? [yarnrcYml] : [yarnrcYml, ['.yarnrc', YARN_1_SETTINGS]];
  }
  return [];
}

/** The release that first wrote .yarnrc. */
const YARN_1_SETTINGS_SINCE = '4.1';

/** yarn 1's settings (yarn 2+ reads only .yarnrc.yml). */
const YARN_1_SETTINGS = [
  '# yarn 1 reads this file (yarn 2 and later read .yarnrc.yml). Like npm, pnpm and bun, warn',
  '# about a package whose "engines" does not match instead of refusing to install: Prisma 7',
  '# brings @prisma/streams-local, which declares Node.js >= 22 and is used only by `prisma dev`.',
  'ignore-engines true',
  '',
].join('\n');

/** Lines the chosen package manager adds to .gitignore: yarn 2+'s install state is per machine. */
export function packageManagerIgnores(pm: PackageManager): string[] {
  return pm === 'yarn' ? ['.yarn/install-state.gz'] : [];
}

/** What `<pm> --version` prints ('' if nothing), or undefined when it cannot be run or fails. */
export function packageManagerVersion(pm: PackageManager, cwd?: string): string | undefined {
  const result = spawnSync(pm, ['--version'], {
    cwd,
    encoding: 'utf8',
    timeout: 60_000,
    stdio: ['ignore', 'pipe', 'pipe'],
    shell: process.platform === 'win32',
    // Corepack's shims may fetch the package manager once; they must not stop to ask.
    env: { ...process.env, COREPACK_ENABLE_DOWNLOAD_PROMPT: '0' },
  });
  if (result.error || result.status !== 0) return undefined;
  return result.stdout.trim().split('\n').pop()?.trim() ?? '';
}

function major(version: string | undefined): number {
  return Number.parseInt((version ?? '').replace(/^v/, ''), 10);
}

/**
 * The install command. A new project has no lockfile, and pnpm and yarn 2+ refuse to write one
 * when CI is set (frozen / immutable installs), so the first install says it may.
 */
export function installArgs(pm: PackageManager, cwd?: string): string[] {
  const version = pm === 'yarn' ? packageManagerVersion(pm, cwd) : undefined;
  if (pm === 'pnpm') return ['install', '--no-frozen-lockfile'];
  if (pm === 'yarn' && major(version) >= 2) return ['install', '--no-immutable'];
  return ['install'];
}

const HOW_TO_GET: Record<PackageManager, string> = {
  npm: 'npm comes with Node.js: install Node.js 20.19 or later from https://nodejs.org',
  pnpm: 'run `corepack enable pnpm` (corepack comes with Node.js 20 and 22) or `npm install --global pnpm`',
  yarn: 'run `corepack enable yarn` (corepack comes with Node.js 20 and 22) or `npm install --global yarn`',
  bun: 'run `npm install --global bun` or see https://bun.sh',
};

/**
 * Runs before anything is written when the CLI is to install: the chosen package manager must run.
 * Throws a UsageError (exit 2).
 */
export function checkPackageManager(pm: PackageManager): void {
  const version = packageManagerVersion(pm);
  if (version === undefined) {
    throw new UsageError(
      `--pm ${pm}: '${pm}' cannot be run here (not found on PATH). To get it, ${HOW_TO_GET[pm]}; then run this again. Or choose another package manager with --pm, or skip the install with --no-install.`,
    );
  }
}
