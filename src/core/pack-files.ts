import { readdirSync, readlinkSync, type Dirent } from 'node:fs';
import path from 'node:path';
import { ManifestError } from './errors.js';

/** npm drops dotfiles such as .gitignore from published packages, so templates store them as _name. */
export const DOTFILE_PREFIX = '_';

/** The name a template file gets in the project: `.hbs` dropped, a leading `_` turned into a dot. */
export function outputFileName(name: string): string {
  const plain = name.replace(/\.hbs$/, '');
  return plain.startsWith(DOTFILE_PREFIX) ? `.${plain.slice(DOTFILE_PREFIX.length)}` : plain;
}

/** The name a template folder gets in the project: a leading `_` turned into a dot. */
export function outputFolderName(name: string): string {
  return name.startsWith(DOTFILE_PREFIX) ? `.${name.slice(DOTFILE_PREFIX.length)}` : name;
}

/**
 * A name git would take for its own folder: `.git` in any case (case-insensitive file systems),
 * with trailing dots or spaces (Windows drops them), or its 8.3 short name.
 */
export function isGitName(name: string): boolean {
  const normalized = name.toLowerCase().replace(/[. ]+$/, '');
  return normalized === '.git' || normalized === 'git~1';
}

/**
 * Why a path a manifest (or an app's gatekit.json) names would not stay inside its folder, or
 * undefined when it does. Paths are relative, with `/` between folders, never `..`, and never into
 * a `.git` folder. `folder` names that folder in the answer.
 */
export function pathProblem(value: string, folder = 'the folder'): string | undefined {
  if (value.trim() === '') return 'is empty';
  if (path.posix.isAbsolute(value) || path.win32.isAbsolute(value)) return 'is absolute';
  if (value.includes('\\')) return "uses '\\' (write folders with '/')";
  const segments = value.split('/');
  if (segments.includes('..')) return `leaves ${folder} with '..'`;
  if (segments.some(isGitName)) return 'names a .git folder';
  return undefined;
}

/**
 * Checks every entry of a module folder before anything in it is read. A pack is data: plain files
 * and folders only. A symbolic link would copy whatever it points to (any file on the machine)
 * into the project; a `.git` folder, or a template rendered to `.git`, would hand git a
 * configuration that runs commands (core.fsmonitor, hooks) when the CLI commits the new project;
 * reading a FIFO or a device would hang or read without end.
 */
export function checkModuleFolder(dir: string): void {
  const refuse = (file: string, problem: string) => {
    throw new ManifestError(`Invalid pack: ${file} ${problem}`);
  };
  const walk = (folder: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch (error) {
      throw new ManifestError(`Cannot read the module folder ${folder}: ${(error as Error).message}`);
    }
    for (const entry of entries) {
      const full = path.join(folder, entry.name);
      if (entry.isSymbolicLink()) {
        refuse(full, `is a symbolic link (to ${readlinkSync(full)}). A pack may not hold symbolic links: put the file itself in the module folder.`);
      }
      const projectName = entry.isDirectory() ? outputFolderName(entry.name) : outputFileName(entry.name);
      if (isGitName(entry.name) || isGitName(projectName)) {
        refuse(full, `${entry.isDirectory() && isGitName(entry.name) ? 'is a .git folder' : 'would be .git in the project'}. A pack may not hold files under .git/: git runs what a .git folder configures.`);
      }
      if (entry.isDirectory()) walk(full);
      else if (!entry.isFile()) refuse(full, 'is neither a file nor a folder (a FIFO, socket or device). A pack holds only files and folders.');
    }
  };
  walk(dir);
}
