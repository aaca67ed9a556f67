import { type Stats, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { StepError, UsageError } from './errors.js';
import type { FileTree } from './file-tree.js';
import { refuseLinksOutside } from './links.js';

export function isEmptyDirectory(dir: string): boolean {
  return !existsSync(dir) || readdirSync(dir).length === 0;
}

/** Why `dir` cannot hold a project at all (it, or a folder on the way to it, is a file), else undefined. */
export function targetProblem(dir: string): string | undefined {
  let at = path.resolve(dir);
  for (;;) {
    let stat: Stats | undefined;
    try {
      stat = statSync(at, { throwIfNoEntry: false });
    } catch {
      // ENOTDIR: a file further up; the loop finds it.
    }
    if (stat && !stat.isDirectory()) {
      return at === path.resolve(dir)
        ? `'${dir}' is a file, not a directory. Choose a directory name for the new app.`
        : `'${dir}' cannot be created: ${at} is a file, not a directory. Choose another place for the new app.`;
    }
    if (stat || path.dirname(at) === at) return undefined;
    at = path.dirname(at);
  }
}

/** Refuses a non-empty target unless --force: nothing a user has there is ever overwritten silently. */
export function checkTarget(dir: string, force: boolean): void {
  const problem = targetProblem(dir);
  if (problem) throw new UsageError(problem);
  if (existsSync(dir) && !isEmptyDirectory(dir) && !force) {
    throw new UsageError(
      `Directory '${dir}' is not empty. Choose another directory, empty it, or pass --force to write into it (files Gatekit generates are overwritten).`,
    );
  }
}

function writeFiles(root: string, tree: FileTree): void {
  const made = new Set<string>();
  for (const [file, content] of tree.entries()) {
    const target = path.join(root, file);
    const folder = path.dirname(target);
    if (!made.has(folder)) {
      mkdirSync(folder, { recursive: true });
      made.add(folder);
    }
    writeFileSync(target, content);
  }
}

/**
 * Writes the tree. A new or empty target is written into a temporary sibling first and renamed
 * into place, so a failure never leaves a half-written project. With --force into a non-empty
 * folder, files are written in place (never through a symbolic link that leads out of it) and a
 * failure says which folder may be incomplete.
 */
export function writeTree(dir: string, tree: FileTree): void {
  const target = path.resolve(dir);
  if (!isEmptyDirectory(target)) {
    refuseLinksOutside(target, tree.paths(), 'create-gatekit');
    try {
      writeFiles(target, tree);
    } catch (error) {
      throw new StepError('write', `Writing into ${target} failed part-way (${(error as Error).message}); the folder may be incomplete.`, 'Fix the cause and run the same command again with --force.');
    }
    return;
  }
  mkdirSync(path.dirname(target), { recursive: true });
  const staging = `${target}.gatekit-${process.pid}-${Date.now()}`;
  try {
    writeFiles(staging, tree);
    if (existsSync(target)) rmSync(target, { recursive: true });
    renameSync(staging, target);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw new StepError('write', `Could not write the project to ${target}: ${(error as Error).message}. Nothing was left behind.`, 'Fix the cause (permissions, disk space) and run the same command again.');
  }
}
