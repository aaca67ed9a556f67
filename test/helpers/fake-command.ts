import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * A PATH on which `name` is a stand-in shell script (its `lines` after `#!/bin/sh`), found before
 * the machine's own commands: a package manager or git whose behaviour a test needs to control.
 */
export function fakeCommandPath(dir: string, name: string, lines: string[]): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, name), `${['#!/bin/sh', ...lines].join('\n')}\n`, { mode: 0o755 });
  return `${dir}${path.delimiter}${process.env.PATH}`;
}
