import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** Set by test/global-setup.ts to the CLI this run built; else the repository's own build. */
export const BIN_ENV = 'GATEKIT_TEST_BIN';
export const BIN = process.env[BIN_ENV] ?? path.join(ROOT, 'bin/create-gatekit.js');

export interface CliResult {
  status: number | null;
  /** The signal that ended the CLI, when one did. */
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI the way CI does: no TTY on stdin, CI set. */
export function runCli(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): CliResult {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, CI: 'true', ...options.env },
    input: '',
    encoding: 'utf8',
    timeout: 600_000,
  });
  return { status: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr };
}
