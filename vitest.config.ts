import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { SlowFilesFirst } from './test/sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Generated projects and their installs live under test/tmp.
    exclude: ['test/tmp/**', '**/node_modules/**'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 900_000,
    // Runtime tests install real projects; two at a time fits the 2-core machines.
    maxWorkers: 2,
    // The files that take minutes start first, so neither worker is left alone at the end.
    sequence: { sequencer: SlowFilesFirst },
    // Prisma's native schema engine, which generated apps' `prisma migrate diff` (npm run
    // db:migration) runs, cannot be downloaded here: a stand-in that speaks its protocol does it.
    env: { PRISMA_SCHEMA_ENGINE_BINARY: fileURLToPath(new URL('test/helpers/bin/schema-engine.mjs', import.meta.url)) },
  },
});
