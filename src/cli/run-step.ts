import { spawn } from 'node:child_process';
import { StepError } from '../core/errors.js';
import type { Reporter } from './reporter.js';

export interface StepCommand {
  /** Short name of the step, shown in progress and errors: "install", "database". */
  step: string;
  label: string;
  command: string;
  args: string[];
  cwd: string;
  retry: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * Runs a long step as a child process, printing a plain progress line before and after.
 * Its own output is kept and shown only when it fails.
 */
export function runStep(reporter: Reporter, step: StepCommand): Promise<void> {
  const started = Date.now();
  reporter.info(`… ${step.label}`);
  return new Promise((resolve, reject) => {
    const child = spawn(step.command, step.args, {
      cwd: step.cwd,
      env: { ...process.env, ...step.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      shell: process.platform === 'win32',
    });
    const output: string[] = [];
    const keep = (chunk: Buffer) => {
      output.push(chunk.toString());
      if (output.length > 400) output.splice(0, output.length - 400);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', (error) => {
      reject(new StepError(step.step, `${step.label} failed: cannot run '${step.command}' (${error.message}).`, step.retry));
    });
    child.on('close', (code) => {
      if (code === 0) {
        reporter.info(`✔ ${step.label} (${((Date.now() - started) / 1000).toFixed(1)}s)`);
        resolve();
        return;
      }
      const tail = output.join('').trimEnd().split('\n').slice(-25).join('\n');
      reject(new StepError(step.step, `${step.label} failed (exit code ${code}).\n${tail}`, step.retry));
    });
  });
}
