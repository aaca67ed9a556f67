import { ManifestError } from './errors.js';
import { pathProblem } from './pack-files.js';

/** The generated project, in memory: relative POSIX path -> file content. Written to disk once, at the end. */
export class FileTree {
  private readonly files = new Map<string, string>();

  constructor(private readonly owners = new Map<string, string>()) {}

  /**
   * Adds a file. Every path stays inside the project and out of .git/ (loading a pack already
   * refuses anything else; this is the last guard before a write). Two modules writing the same
   * path is a template bug, reported with both owners.
   */
  add(path: string, content: string, owner: string): void {
    const problem = pathProblem(path);
    if (problem) throw new ManifestError(`Module '${owner}' would write '${path}', which ${problem}: a module writes only inside the project, never into .git/.`);
    const existing = this.owners.get(path);
    if (existing !== undefined) {
      throw new ManifestError(`Both '${existing}' and '${owner}' write ${path}: two modules may not write the same file; rename the file in one of them.`);
    }
    this.owners.set(path, owner);
    this.files.set(path, content);
  }

  /** Adds lines at the end of a file already in the tree (its owner stays the same). */
  appendLines(path: string, lines: string[]): void {
    const content = this.files.get(path);
    if (content === undefined) throw new Error(`Cannot append to ${path}: no module writes it.`);
    this.files.set(path, `${content}${content === '' || content.endsWith('\n') ? '' : '\n'}${lines.map((line) => `${line}\n`).join('')}`);
  }

  get(path: string): string | undefined {
    return this.files.get(path);
  }

  /** The module that wrote a file ('core' for the files composed from several modules). */
  owner(path: string): string | undefined {
    return this.owners.get(path);
  }

  has(path: string): boolean {
    return this.files.has(path);
  }

  paths(): string[] {
    return [...this.files.keys()].sort();
  }

  entries(): [string, string][] {
    return this.paths().map((path) => [path, this.files.get(path)!]);
  }

  get size(): number {
    return this.files.size;
  }

  totalBytes(): number {
    let bytes = 0;
    for (const content of this.files.values()) bytes += Buffer.byteLength(content);
    return bytes;
  }
}
