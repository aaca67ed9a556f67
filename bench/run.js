// npm run bench: generation speed against a plain-fs baseline in the same run, then every
// bench/cases/*.mjs. Prints medians and ratios and writes bench/results.json.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = 5;
const fixture = process.env.BENCH_FIXTURE ?? 'full';

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** Runs a node script as its own process; returns wall time (ms) and peak RSS (MB). */
function measure(args) {
  const usageFile = path.join(tmpdir(), `gatekit-bench-usage-${process.pid}`);
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, ['--import', pathToFileURL(path.join(root, 'bench/report-usage.mjs')).href, ...args], {
    cwd: root,
    env: { ...process.env, BENCH_USAGE_FILE: usageFile, CI: 'true' },
    encoding: 'utf8',
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`${args.join(' ')} failed:\n${result.stderr}`);
  return { ms, peakMb: Number(readFileSync(usageFile, 'utf8')) / 1024 };
}

function series(label, makeArgs) {
  const work = path.join(tmpdir(), `gatekit-bench-${label}-${process.pid}`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const runs = [];
  for (let i = 0; i <= RUNS; i++) {
    const sample = measure(makeArgs(path.join(work, `app-${i}`)));
    if (i > 0) runs.push(sample); // run 0 is the warm-up
  }
  rmSync(work, { recursive: true, force: true });
  return {
    medianMs: Math.round(median(runs.map((run) => run.ms)) * 10) / 10,
    medianPeakMb: Math.round(median(runs.map((run) => run.peakMb)) * 10) / 10,
    runsMs: runs.map((run) => Math.round(run.ms * 10) / 10),
  };
}

function benchGeneration() {
  spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'ignore' });
  const config = path.join(root, 'fixtures', `${fixture}.json`);
  const cli = (target) => ['bin/create-gatekit.js', target, '--config', config, '--yes', '--no-install', '--no-git'];

  // The files the generator writes, captured once, for the baseline to write with plain fs.
  const dry = spawnSync(process.execPath, [...cli(path.join(tmpdir(), 'gatekit-bench-probe')), '--dry-run', '--json'], { cwd: root, encoding: 'utf8', env: { ...process.env, CI: 'true' } });
  const summary = JSON.parse(dry.stdout);
  const probe = path.join(tmpdir(), `gatekit-bench-probe-${process.pid}`);
  const generated = spawnSync(process.execPath, cli(probe), { cwd: root, env: { ...process.env, CI: 'true' } });
  if (generated.status !== 0) throw new Error('generation failed');
  // Read back what was written (not the dry run's paths: a migration folder is named after the
  // second it was generated in, and the two runs may straddle a second).
  const files = readdirSync(probe, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(probe, path.join(entry.parentPath ?? entry.path, entry.name)))
    .sort()
    .map((file) => ({ path: file, content: readFileSync(path.join(probe, file), 'utf8') }));
  if (files.length !== summary.files.length) throw new Error(`the generator wrote ${files.length} files, its dry run listed ${summary.files.length}`);
  rmSync(probe, { recursive: true, force: true });
  const manifest = path.join(tmpdir(), `gatekit-bench-files-${process.pid}.json`);
  writeFileSync(manifest, JSON.stringify(files));
  const bytes = files.reduce((total, file) => total + Buffer.byteLength(file.content), 0);

  const gatekit = series('gatekit', cli);
  const baseline = series('baseline', (target) => ['bench/write-baseline.mjs', manifest, target]);
  rmSync(manifest, { force: true });
  return {
    fixture,
    modules: summary.modules.map((module) => module.id),
    files: files.length,
    bytes,
    runs: RUNS,
    gatekit,
    baseline,
    ratio: Math.round((gatekit.medianMs / baseline.medianMs) * 100) / 100,
    targets: { ratioAtMost: 3, medianMsAtMost: 300, medianPeakMbAtMost: 100 },
  };
}

// BENCH_ONLY=name[,name…] runs only those parts ("generation" or a case file's name); the other
// parts of bench/results.json are kept as they were, and `partial` lists what this run measured.
const only = process.env.BENCH_ONLY ? process.env.BENCH_ONLY.split(',').map((name) => name.trim()) : undefined;
const wanted = (name) => !only || only.includes(name);
const resultsFile = path.join(root, 'bench/results.json');
const previous = only && existsSync(resultsFile) ? JSON.parse(readFileSync(resultsFile, 'utf8')) : {};
const results = { ...previous, date: new Date().toISOString(), node: process.version };
delete results.partial;
if (only) results.partial = only;

if (wanted('generation')) {
  results.generation = benchGeneration();
  const g = results.generation;
  console.log(`generation (${g.fixture}: ${g.modules.join(', ')}; ${g.files} files, ${g.bytes} bytes, median of ${g.runs} after a warm-up)`);
  const pass = (ok) => (ok ? 'PASS' : 'FAIL');
  console.log(`  create-gatekit  ${g.gatekit.medianMs} ms  peak ${g.gatekit.medianPeakMb} MB  (targets ≤ ${g.targets.medianMsAtMost} ms: ${pass(g.gatekit.medianMs <= g.targets.medianMsAtMost)}; peak ≤ ${g.targets.medianPeakMbAtMost} MB: ${pass(g.gatekit.medianPeakMb <= g.targets.medianPeakMbAtMost)})`);
  console.log(`  plain fs        ${g.baseline.medianMs} ms  peak ${g.baseline.medianPeakMb} MB`);
  console.log(`  ratio           ${g.ratio}x (target ≤ ${g.targets.ratioAtMost}x: ${pass(g.ratio <= g.targets.ratioAtMost)})`);
}

const casesDir = path.join(root, 'bench/cases');
for (const file of readdirSync(casesDir).filter((name) => name.endsWith('.mjs')).sort()) {
  const name = file.replace(/\.mjs$/, '');
  if (!wanted(name)) continue;
  const { run, format } = await import(pathToFileURL(path.join(casesDir, file)).href);
  results[name] = await run({ root });
  // A case may print itself (every figure with its target and ratio); the JSON is in results.json.
  console.log(format ? format(results[name]).join('\n') : `${name}: ${JSON.stringify(results[name], null, 2)}`);
}

// The performance targets of this run in one place (each case printed its figures above).
const summary = [];
const verdict = (pass) => (pass ? 'PASS' : 'FAIL');
if (wanted('http') && results.http) {
  for (const db of ['sqlite', 'postgresql']) {
    for (const one of results.http[db]?.targets ?? []) summary.push(`  ${verdict(one.pass)}  ${db.padEnd(10)} ${one.figure.padEnd(38)} ${String(one.value).padEnd(7)} target ${one.target}`);
  }
}
if (wanted('install') && results.install) {
  const readme = results.install.readmeFirstCommand;
  summary.push(`  ${verdict(readme.pass)}  ${'sqlite'.padEnd(10)} ${"README's first command (s, warm cache)".padEnd(38)} ${String(readme.totalSeconds).padEnd(7)} target ${readme.target}`);
}
if (summary.length) console.log(['', 'targets', ...summary].join('\n'));

writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
console.log(`wrote bench/results.json${only ? ` (only ${only.join(', ')} measured in this run)` : ''}`);
