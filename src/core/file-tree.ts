/** The generated project, in memory: relative POSIX path -> file content. Written to disk once, at the end. */
export class FileTree {
  private readonly files = new Map<string, string>();

  constructor(private readonly owners = new Map<string, string>()) {}

  /** Adds a file; two modules writing the same path is a template bug, reported with both owners. */
  add(path: string, content: string, owner: string): void {
    const existing = this.owners.get(path);
    if (existing !== undefined) {
      throw new Error(`Both '${existing}' and '${owner}' write ${path}.`);
    }
    this.owners.set(path, owner);
    this.files.set(path, content);
  }

  get(path: string): string | undefined {
    return this.files.get(path);
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
