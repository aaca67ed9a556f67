import type * as Clack from '@clack/prompts';
import type { NextSteps } from '../core/next-steps.js';

/** The next steps as lines: the commands together, then, after a blank line, the notes. */
function stepLines(steps: NextSteps): string[] {
  return [...steps.commands, ...(steps.notes.length > 0 ? ['', ...steps.notes] : [])];
}

/**
 * Where human output goes. With --json, stdout carries only the JSON summary and everything
 * meant for people goes to stderr. In a terminal (clack given), progress and next steps use
 * clack's log lines, spinner, note and outro; elsewhere plain lines.
 */
export interface Reporter {
  info(line: string): void;
  /** Several lines that belong together (a plan). */
  block(lines: string[]): void;
  /** A finished step: "✔ Wrote 80 files". */
  success(line: string): void;
  warn(line: string): void;
  /** Output that answers the command (file list, table); stdout unless --json. */
  result(text: string): void;
  json(value: unknown): void;
  /** The closing block: next steps, then the last line. */
  finish(title: string, steps: NextSteps, last: string): void;
  /** clack, when a person watches a terminal: long steps show its spinner. */
  clack?: typeof Clack;
}

export function createReporter(json: boolean, clack?: typeof Clack): Reporter {
  const human = (line: string) => (json ? process.stderr : process.stdout).write(`${line}\n`);
  if (clack && !json) {
    return {
      clack,
      info: (line) => (line === '' ? undefined : clack.log.message(line)),
      block: (lines) => clack.log.message(lines.join('\n')),
      success: (line) => clack.log.success(line),
      warn: (line) => clack.log.warn(line.replace(/^! /, '')),
      result: human,
      json: (value) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`),
      finish: (title, steps, last) => {
        clack.note(stepLines(steps).join('\n'), title);
        clack.outro(last);
      },
    };
  }
  return {
    info: human,
    block: (lines) => lines.forEach(human),
    success: (line) => human(`✔ ${line}`),
    warn: (line) => process.stderr.write(`${line}\n`),
    result: human,
    json: (value) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`),
    finish: (title, steps, last) => {
      human('');
      human(`${title}:`);
      for (const line of stepLines(steps)) human(line && `  ${line}`);
      if (last) human(last);
    },
  };
}
