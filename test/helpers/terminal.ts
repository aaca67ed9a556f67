import { spawn } from 'node:child_process';
import { BIN } from './run-cli.js';

/** Terminal output without colours and cursor movement, for matching what a person sees. */
export function plainText(output: string): string {
  // eslint-disable-next-line no-control-regex
  return output.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').replace(/\u001b\][^\u0007]*\u0007/g, '').replace(/\r/g, '');
}

export interface TerminalStep {
  /** Wait until the screen shows this (after the previous step's keys)... */
  waitFor: RegExp;
  /** ...then type these keys. */
  keys?: string;
}

export const KEYS = { enter: '\r', down: '\u001b[B', space: ' ', left: '\u001b[D', backspace: '\u007f', ctrlC: '\u0003' };

/**
 * Runs the built CLI in a real pseudo-terminal (util-linux `script`), typing keys when the screen
 * shows what each step waits for. Resolves with the exit code and everything printed.
 */
export function runInTerminal(
  args: string[],
  steps: TerminalStep[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<{ code: number | null; output: string }> {
  const quoted = [process.execPath, BIN, ...args].map((part) => `'${part.replace(/'/g, `'\\''`)}'`).join(' ');
  const env: NodeJS.ProcessEnv = { ...process.env, TERM: 'xterm-256color', COLUMNS: '160', LINES: '50', ...options.env };
  delete env.CI;
  const child = spawn('script', ['-qfec', `stty cols 160 rows 50; exec ${quoted}`, '/dev/null'], { cwd: options.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  let next = 0;
  let shownAt = 0;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`Timed out waiting for ${steps[next]?.waitFor ?? 'exit'}; the screen showed:\n${plainText(output).slice(-3000)}`));
    }, options.timeoutMs ?? 60_000);
    const advance = () => {
      while (next < steps.length) {
        const step = steps[next]!;
        const screen = plainText(output.slice(shownAt));
        if (!step.waitFor.test(screen)) return;
        shownAt = output.length;
        next += 1;
        if (step.keys) child.stdin.write(step.keys);
      }
    };
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      // Let the prompt finish drawing before typing.
      setTimeout(advance, 150);
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => {
      clearTimeout(timer);
      advance();
      child.stdin.destroy();
      if (next < steps.length) reject(new Error(`Exited (${code}) before ${steps[next]!.waitFor}; the screen showed:\n${plainText(output).slice(-3000)}`));
      else resolve({ code, output: plainText(output) });
    });
  });
}
