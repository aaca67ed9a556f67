// The baseline: write the same files (same paths, same bytes) with plain fs calls.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const [manifestFile, target] = process.argv.slice(2);
const files = JSON.parse(readFileSync(manifestFile, 'utf8'));
for (const { path: file, content } of files) {
  const full = path.join(target, file);
  mkdirSync(path.dirname(full), { recursive: true });
  writeFileSync(full, content);
}
