import { closeSync, constants, fstatSync, openSync, readFileSync, realpathSync, type Stats } from 'node:fs';
import path from 'node:path';
import { UsageError } from './errors.js';
import { describeLink, linkLeadingOutside } from './links.js';
import { pathProblem } from './pack-files.js';

/**
 * Reads one file of an app as text, or undefined when it does not exist. `namedIn` says where the
 * name came from when that is not the render (`gatekit.json "files"`), for the refusal.
 */
export type AppFileReader = (relative: string, namedIn?: string) => string | undefined;

const REFUSAL = 'create-gatekit reads only regular files inside the app. Nothing was written.';

function kindOf(stat: Stats): string {
  if (stat.isDirectory()) return 'a folder';
  if (stat.isFIFO()) return 'a FIFO (named pipe)';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isSocket()) return 'a socket';
  return 'not a file';
}

/**
 * A reader of an app's own files, for `add` (and anything else that reads an app it did not just
 * write). An app may come from anywhere (a clone, an archive), and the names read come from its
 * gatekit.json as well as from the render, so a file is read only when it is a regular file inside
 * the app: a name that is absolute or has `..`, a symbolic link on the way that leads out of the
 * app, and a folder, FIFO, device or socket are refused (UsageError, naming it) before a byte is
 * read. The file is opened without blocking and checked on the open descriptor, so a FIFO cannot
 * hang the open and nothing can be swapped in between the check and the read.
 */
export function appFileReader(appDir: string): AppFileReader {
  let root: string;
  try {
    root = realpathSync(appDir);
  } catch {
    return () => undefined; // no app folder: no file in it
  }
  return (relative, namedIn) => {
    const fix = namedIn ? `Remove '${relative}' from ${namedIn}, or put the file back.` : 'Move it away and run the command again.';
    const problem = pathProblem(relative, 'the app');
    if (problem) throw new UsageError(`'${relative}'${namedIn ? ` (named in ${namedIn})` : ''} ${problem}. ${REFUSAL}`);
    const link = linkLeadingOutside(root, relative);
    if (link) throw new UsageError(`${describeLink(root, link)} ${REFUSAL} ${namedIn ? fix : 'Replace the link with the file itself, or remove it.'}`);
    const file = path.join(root, relative);
    let fd: number;
    try {
      fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      throw new UsageError(`Cannot read ${file} (${(error as Error).message}). Nothing was written.`);
    }
    try {
      const stat = fstatSync(fd);
      if (!stat.isFile()) throw new UsageError(`${file}${namedIn ? ` (named in ${namedIn})` : ''} is ${kindOf(stat)}, not a regular file. ${REFUSAL} ${fix}`);
      return readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
  };
}
