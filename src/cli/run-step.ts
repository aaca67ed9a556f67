import { spawn } from 'node:child_process';
import { InterruptedError, StepError } from '../core/errors.js';
import type { Reporter } from './reporter.js';
import { startTimerLine } from './timer-line.js';

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

interface Progress {
  done(seconds: string): void;
  failed(): void;
  interrupted(): void;
}

/** A spinner with elapsed time in a terminal; plain lines before and after otherwise. */
function startProgress(reporter: Reporter, label: string): Progress {
  if (reporter.clack) {
    const line = startTimerLine(reporter.clack, label);
    return { done: line.done, failed: line.failed, interrupted: line.interrupted };
  }
  reporter.info(`… ${label}`);
  return { done: (seconds) => reporter.success(`${label} (${seconds}s)`), failed: () => undefined, interrupted: () => reporter.warn(`! ${label}: interrupted`) };
}

/**
 * How long a step that failed still listens for an interrupt before it reports the failure.
 * Ctrl-C reaches the package manager and this process at once; the package manager, interrupted,
 * may exit with a failure that is handled here before the interrupt is (on a loaded machine, this
 * process's signal handler can run late). An interrupt this close to the failure caused it.
 */
export const INTERRUPT_GRACE_MS = 500;

/**
 * Runs a long step as a child process, with progress (see startProgress).
 * Its own output is kept and shown only when it fails.
 */
export function runStep(reporter: Reporter, step: StepCommand): Promise<void> {
  const started = Date.now();
  const progress = startProgress(reporter, step.label);
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
    const interruptedError = () => new InterruptedError(step.step, `${step.label} was interrupted.`, step.retry);
    // Ctrl-C reaches the child too (same terminal); the step then ends as interrupted, whatever
    // the child's exit code, and never as a success. A second Ctrl-C stops a child that lingers.
    // After the child failed, an interrupt within INTERRUPT_GRACE_MS ends the step at once, as interrupted.
    let interrupted = false;
    let pendingFailure: NodeJS.Timeout | undefined;
    let ended = false;
    const onInterrupt = () => {
      if (pendingFailure) {
        clearTimeout(pendingFailure);
        end(interruptedError());
        return;
      }
      child.kill(interrupted ? 'SIGKILL' : 'SIGINT');
      interrupted = true;
    };
    process.on('SIGINT', onInterrupt);
    process.on('SIGTERM', onInterrupt);
    const end = (error?: Error) => {
      if (ended) return;
      ended = true;
      process.removeListener('SIGINT', onInterrupt);
      process.removeListener('SIGTERM', onInterrupt);
      if (error instanceof InterruptedError) progress.interrupted();
      else if (error) progress.failed();
      else progress.done(((Date.now() - started) / 1000).toFixed(1));
      if (error) reject(error);
      else resolve();
    };
    child.on('error', (error) => {
      end(new StepError(step.step, `${step.label} failed: cannot run '${step.command}' (${error.message}).`, step.retry));
    });
    child.on('close', (code) => {
      if (ended) return;
      if (interrupted) return end(interruptedError());
      if (code === 0) return end();
      const failed = () => {
        const tail = output.join('').trimEnd().split('\n').slice(-25).join('\n');
        end(new StepError(step.step, `${step.label} failed (exit code ${code}).\n${tail}`, step.retry));
      };
      pendingFailure = setTimeout(failed, INTERRUPT_GRACE_MS);
    });
  });
}
