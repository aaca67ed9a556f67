/**
 * Freezes an earlier release so this generator can render apps exactly as that release did (the
 * merge base of `create-gatekit upgrade`, docs/upgrade.md):
 *
 *   npx tsx scripts/freeze-release.ts 4.0 fdf1e27
 *
 * From the commit that shipped the release, it writes
 * - releases/<X.Y>/templates/: the commit's templates/ folder, file for file;
 * - releases/<X.Y>/release.json: the commit, the version its generator wrote into gatekit.json
 *   (4.0's package.json still said 3.7.0), and its table of npm versions;
 * - test/releases/<X.Y>.json: what that release's own core renders for each of the commit's
 *   fixtures (and a few package-manager and template-version variants), as a content hash per
 *   file. test/unit/frozen-releases.test.ts renders the same choices with this core and the frozen
 *   release and expects every file and hash, and checks the frozen folder against git.
 *
 * The commit's core runs from a `git archive` of it in a temporary folder, with this checkout's
 * node_modules (the generator's dependencies did not change between 4.0 and 4.1).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The fixed clock of the renders (migration folder names). */
const FROZEN_CLOCK = '2026-01-01T00:00:00Z';

/** A case: a fixture's choices, rendered by the release's core. */
interface RenderCase {
  name: string;
  projectName: string;
  choices: Record<string, unknown>;
  /** Content hash (sha256, 16 hex) per file; .env with its random values as `<random>`. */
  files: Record<string, string>;
}

function usage(): never {
  console.error('Usage: npx tsx scripts/freeze-release.ts <X.Y> <commit>');
  process.exit(2);
}

const [release, commitish] = process.argv.slice(2);
if (!release || !/^\d+\.\d+$/.test(release) || !commitish) usage();

const commit = execFileSync('git', ['rev-parse', '--verify', `${commitish}^{commit}`], { cwd: ROOT, encoding: 'utf8' }).trim();
const work = mkdtempSync(path.join(tmpdir(), `gatekit-freeze-${release}-`));
try {
  const archive = spawnSync('sh', ['-c', `git archive ${commit} src templates fixtures package.json | tar -x -C "${work}"`], { cwd: ROOT, encoding: 'utf8' });
  if (archive.status !== 0) throw new Error(`git archive failed: ${archive.stderr}`);
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(work, 'node_modules'));

  const target = path.join(ROOT, 'releases', release);
  rmSync(target, { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  cpSync(path.join(work, 'templates'), path.join(target, 'templates'), { recursive: true });

  const old = (file: string) => import(pathToFileURL(path.join(work, 'src/core', file)).href);
  const versions = await old('versions.ts');
  const generatorVersion = (JSON.parse(readFileSync(path.join(work, 'package.json'), 'utf8')) as { version: string }).version;
  const frozen = { release, commit, generatorVersion, packageVersions: versions.PACKAGE_VERSIONS, packageOverrides: versions.PACKAGE_OVERRIDES };
  writeFileSync(path.join(target, 'release.json'), `${JSON.stringify(frozen, null, 2)}\n`);

  const { generateProject } = await old('generate-project.ts');
  const { mergeChoices, readConfigFile } = await old('choices.ts');
  const { createRegistry, loadBuiltinModules } = await old('registry.ts');
  const { flaggedModules } = await old('choosable-modules.ts');
  const { createHash } = await import('node:crypto');
  const registry = createRegistry(loadBuiltinModules());
  const flagIds = flaggedModules(registry).map((module: { manifest: { id: string } }) => module.manifest.id);
  const fixtures = readdirSync(path.join(work, 'fixtures')).filter((file) => file.endsWith('.json')).sort();

  const cases: { name: string; choices: Record<string, unknown> }[] = [];
  for (const file of fixtures) {
    const choices = mergeChoices(readConfigFile(path.join(work, 'fixtures', file), flagIds), { pm: 'npm' });
    cases.push({ name: file.replace(/\.json$/, ''), choices });
  }
  // The core writes files of its own for each package manager, and an older template version selects fewer modules.
  const minimal = cases.find((one) => one.name === 'minimal')!.choices;
  for (const pm of ['pnpm', 'yarn', 'bun']) cases.push({ name: `minimal-${pm}`, choices: { ...minimal, pm } });
  const full = cases.find((one) => one.name === 'full')!.choices;
  cases.push({ name: 'template-version-3.0', choices: mergeChoices({ templateVersion: '3.0', auth: ['jwt', 'magic-link'], oauth: ['google', 'github'], toggles: {} }, { pm: 'npm' }) });
  cases.push({ name: 'full-postgresql-pnpm', choices: { ...full, db: 'postgresql', pm: 'pnpm', hosted: [] } });

  const hash = (content: string) => createHash('sha256').update(content).digest('hex').slice(0, 16);
  const rendered: RenderCase[] = cases.map(({ name, choices }) => {
    const projectName = `fixture-${name}`;
    const render = () => generateProject({ projectName, choices, registry, now: new Date(FROZEN_CLOCK) }).tree as { entries(): [string, string][] };
    const [first, second] = [new Map(render().entries()), new Map(render().entries())];
    const files = Object.fromEntries(
      [...first].map(([file, content]) => [file, hash(file === '.env' ? withRandomMasked(content, second.get(file)!) : content)]),
    );
    return { name, projectName, choices, files };
  });
  const out = path.join(ROOT, 'test', 'releases', `${release}.json`);
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify({ release, commit, clock: FROZEN_CLOCK, cases: rendered }, null, 2)}\n`);
  console.log(`Froze release ${release} (${commit.slice(0, 12)}): ${path.relative(ROOT, target)}/, ${path.relative(ROOT, out)} (${rendered.length} renders)`);
} finally {
  rmSync(work, { recursive: true, force: true });
}

/** Lines of `content` that another render wrote differently (fresh secrets), as NAME=<random>. */
function withRandomMasked(content: string, other: string): string {
  const otherLines = other.split('\n');
  return content
    .split('\n')
    .map((line, index) => (line === otherLines[index] ? line : line.replace(/=.*$/, '=<random>')))
    .join('\n');
}
