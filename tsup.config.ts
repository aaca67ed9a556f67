import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { cli: 'src/cli/main.ts', index: 'src/index.ts' },
  format: 'esm',
  target: 'node20',
  platform: 'node',
  clean: true,
  sourcemap: true,
});
