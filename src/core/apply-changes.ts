import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync, rmdirSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { StepError } from './errors.js';
import { refuseLinksOutside } from './links.js';

/** Files that a later step (the package manager's install) rewrites, kept so a rollback restores them too. */
export const LOCKFILES = ['package-lock.json', 'pnpm-lock.yaml', 'yarn.lock', 'bun.lock', 'bun.lockb'];

export interface AppliedChanges {
  /** Puts every file back as it was before, removes the files and folders that were created. */
  rollback(): void;
}

/**
 * Writes (or, for a null content, removes) files of an existing app so that a failure leaves it as
 * it was: each file's previous content (or absence) is kept first, each file is written to a
 * temporary sibling and renamed over,
 * and any error restores everything already written. Nothing is written through a symbolic link
 * that leads outside the app (planAdd refuses it first; this is the guard at the write).
 */
export function applyChanges(appDir: string, writes: [string, string | null][], command = 'create-gatekit add'): AppliedChanges {
  refuseLinksOutside(appDir, [...writes.map(([file]) => file), ...LOCKFILES], command);
  const saved = new Map<string, Buffer | undefined>();
  const createdDirs: string[] = [];
  for (const file of [...writes.map(([file]) => file), ...LOCKFILES]) {
    const target = path.join(appDir, file);
    if (!saved.has(target)) saved.set(target, existsSync(target) && statSync(target).isFile() ? readFileSync(target) : undefined);
  }
  const rollback = () => {
    for (const [target, content] of saved) {
      if (content !== undefined) writeFileSync(target, content);
      else if (existsSync(target) && statSync(target).isFile()) rmSync(target);
    }
    for (const dir of createdDirs.reverse()) {
      if (existsSync(dir) && readdirSync(dir).length === 0) rmdirSync(dir);
    }
  };
  try {
    for (const [file, content] of writes) {
      const target = path.join(appDir, file);
      if (content === null) {
        rmSync(target, { force: true });
        continue;
      }
      for (let dir = path.dirname(target), missing: string[] = []; ; dir = path.dirname(dir)) {
        if (existsSync(dir)) {
          for (const folder of missing.reverse()) {
            mkdirSync(folder);
            createdDirs.push(folder);
          }
          break;
        }
        missing.push(dir);
      }
      const temporary = `${target}.gatekit-tmp-${process.pid}`;
      try {
        writeFileSync(temporary, content);
        renameSync(temporary, target);
      } finally {
        rmSync(temporary, { force: true });
      }
    }
  } catch (error) {
    rollback();
    throw new StepError('write', `Writing the app's files failed (${(error as Error).message}); every file was put back as it was.`, 'Fix the cause (permissions, disk space) and run the same command again.');
  }
  return { rollback };
}
