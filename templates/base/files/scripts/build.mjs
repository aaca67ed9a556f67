// Builds dist/server.js: src/server.ts and the packages it imports at start, in one ES module.
// `npm run build` type-checks with tsc first. One file starts faster than the hundreds it replaces:
// most of a cold start on Node 20 is its module loader finding, reading and linking files.
//
// Left outside the bundle and loaded from node_modules, as in development:
// - packages the app imports with import() when first used (hosted-service SDKs, the mailer,
//   Redis, the QR encoder, bcrypt, Prisma's query compiler), so they still cost nothing at start;
// - libsql, which finds its native binary next to its own files;
// - pg-native, which pg loads only if it is installed.
import { build } from 'esbuild';

const loadedWhenUsed = {
  name: 'loaded-when-used',
  setup(builder) {
    builder.onResolve({ filter: /^[^./]/ }, ({ path, kind }) => (kind === 'dynamic-import' ? { path, external: true } : undefined));
  },
};

await build({
  entryPoints: ['src/server.ts'],
  outfile: 'dist/server.js',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20.19',
  sourcemap: true,
  external: ['libsql', 'pg-native'],
  plugins: [loadedWhenUsed],
  // Bundled CommonJS packages call require() for Node's own modules; an ES module has none.
  banner: { js: "import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);" },
  logLevel: 'warning',
});
