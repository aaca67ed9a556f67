import { createHash } from 'node:crypto';
import type { FileTree } from './file-tree.js';
import { MIGRATIONS_DIR } from './compose-migrations.js';

/** Files Gatekit never merges: the development .env (secrets), its own metadata, and applied migrations. */
export function isTracked(file: string): boolean {
  return file !== '.env' && file !== 'gatekit.json' && !file.startsWith(`${MIGRATIONS_DIR}/`);
}

/** A short content hash: enough to tell whether a user changed a file since Gatekit wrote it. */
export function contentHash(content: string): string {
  return createHash('sha256').update(content).digest('hex').slice(0, 16);
}

/** What gatekit.json records of each generated file, so `add` can tell the user's edits from its own output. */
export function hashTrackedFiles(tree: FileTree): Record<string, string> {
  return Object.fromEntries(tree.entries().filter(([file]) => isTracked(file)).map(([file, content]) => [file, contentHash(content)]));
}
