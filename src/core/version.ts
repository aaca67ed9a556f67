import { readFileSync } from 'node:fs';

function readOwnVersion(): string {
  // src/core/version.ts and dist/cli.js both find package.json by walking up.
  for (const relative of ['../../package.json', '../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'create-gatekit' && pkg.version) return pkg.version;
    } catch {
      // try the next location
    }
  }
  return '0.0.0';
}

export const GENERATOR_VERSION = readOwnVersion();
