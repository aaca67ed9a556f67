import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** Content hash of every file of the app outside node_modules, dist, .git and the generated client. */
export function treeHash(dir: string, root = dir): Record<string, string> {
  const hashes: Record<string, string> = {};
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    const relative = path.relative(root, full);
    if (['node_modules', 'dist', '.git'].includes(name) || relative === path.join('src', 'generated')) continue;
    if (statSync(full).isDirectory()) Object.assign(hashes, treeHash(full, root));
    else hashes[relative] = createHash('sha256').update(readFileSync(full)).digest('hex');
  }
  return hashes;
}
