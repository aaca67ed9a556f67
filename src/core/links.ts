import { lstatSync, readlinkSync, realpathSync, type Stats } from 'node:fs';
import path from 'node:path';
import { UsageError } from './errors.js';

/** Whether `file` is `root` or below it (both absolute and real). */
export function isInside(root: string, file: string): boolean {
  const relative = path.relative(root, file);
  return relative === '' || (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}

export interface OutsideLink {
  /** The link, as a path relative to the app. */
  link: string;
  /** Where it leads (absolute), or what it names when that does not exist. */
  target: string;
}

/**
 * The first symbolic link on the way from `root` (a real path) to the file `relative` that leads
 * outside `root`, or nowhere. Links that stay inside are followed; folders that do not exist yet
 * are fine (they are created as plain folders).
 */
export function linkLeadingOutside(root: string, relative: string): OutsideLink | undefined {
  let current = root;
  for (const segment of relative.split('/')) {
    const next = path.join(current, segment);
    let stat: Stats | undefined;
    try {
      stat = lstatSync(next, { throwIfNoEntry: false });
    } catch {
      return undefined; // a file where a folder should be: the write itself fails and says so
    }
    if (!stat) return undefined;
    if (stat.isSymbolicLink()) {
      let real: string;
      try {
        real = realpathSync(next);
      } catch {
        return { link: path.relative(root, next), target: path.resolve(path.dirname(next), readlinkSync(next)) };
      }
      if (!isInside(root, real)) return { link: path.relative(root, next), target: real };
      current = real;
    } else {
      current = next;
    }
  }
  return undefined;
}

/** "<link> is a symbolic link to <target>, which is outside <root>." (or "which does not exist"). */
export function describeLink(root: string, found: OutsideLink): string {
  const where = isInside(root, found.target) ? 'does not exist' : `is outside ${root}`;
  return `${path.join(root, found.link)} is a symbolic link to ${found.target}, which ${where}.`;
}

/**
 * Refuses, before anything is written, to write any of `files` (relative to `dir`) through a
 * symbolic link that leads outside `dir`: the write would land in a file the user never meant to
 * hand to Gatekit (a link planted in a cloned app, or `src/modules` pointing at another project).
 */
export function refuseLinksOutside(dir: string, files: Iterable<string>, command: string): void {
  const root = realpathSync(dir);
  for (const file of files) {
    const found = linkLeadingOutside(root, file);
    if (found) {
      throw new UsageError(
        `${describeLink(root, found)} ${command} never writes through a link that leads out of the app (it would write ${file} there). Nothing was written. Replace the link with a real ${found.link === file ? 'file' : 'folder'} inside the app, or remove it, and run the command again.`,
      );
    }
  }
}
