import { defineConfig } from 'tsup';
import { writePrecompiledTemplates } from './src/core/precompiled-templates.js';

export default defineConfig((options) => ({
  entry: { cli: 'src/cli/main.ts', index: 'src/index.ts' },
  format: 'esm',
  target: 'node20',
  platform: 'node',
  clean: true,
  sourcemap: true,
  // Bundling the few runtime dependencies into dist/ saves a third of every run's CPU time
  // (measured: 0.23 s against 0.36 s). @clack/prompts stays a separate chunk, loaded only when
  // prompting. Bundled CommonJS code (handlebars) still needs `require` for Node built-ins.
  noExternal: [/^(?!@prisma\/|better-sqlite3|pg$).*/],
  // Prisma's schema engine and its drivers load only for `pack check` (src/core/module-migrations.ts),
  // from the pack's own devDependencies; better-sqlite3 is native and cannot be bundled.
  external: ['@prisma/schema-engine-wasm', '@prisma/driver-adapter-utils', '@prisma/adapter-better-sqlite3', '@prisma/adapter-pg', 'better-sqlite3', 'pg'],
  // The built-in templates, precompiled, next to the CLI (src/core/precompiled-templates.ts).
  onSuccess: async () => writePrecompiledTemplates('templates', options.outDir ?? 'dist'),
  banner: { js: "import { createRequire as __gatekitCreateRequire } from 'node:module'; const require = __gatekitCreateRequire(import.meta.url);" },
}));
