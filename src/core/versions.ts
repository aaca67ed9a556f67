/**
 * The one table of npm versions used by generated projects. A module names a package;
 * its version comes from here, so every project gets the same tested set.
 * Majors are pinned to ones that support Node 20.19 (see ../../docs/architecture.md).
 */
export const PACKAGE_VERSIONS: Readonly<Record<string, string>> = {
  // runtime
  '@auth/express': '^0.12.3',
  '@clerk/backend': '^3.25.0',
  '@libsql/client': '^0.18.0',
  '@prisma/adapter-libsql': '7.10.0',
  '@prisma/adapter-better-sqlite3': '7.10.0',
  '@prisma/adapter-mariadb': '7.10.0',
  '@prisma/adapter-pg': '7.10.0',
  '@prisma/client': '7.10.0',
  '@simplewebauthn/server': '^14.0.3',
  bcrypt: '^6.0.0',
  'better-sqlite3': '^12.11.1',
  cors: '^2.8.6',
  express: '^5.3.0',
  'express-rate-limit': '^8.7.4',
  helmet: '^8.3.0',
  jose: '^6.2.17',
  jsonwebtoken: '^9.0.3',
  libsql: '^0.5.29',
  mariadb: '^3.5.4',
  nodemailer: '^10.6.0',
  'openid-client': '^6.8.9',
  otpauth: '^9.5.2',
  pg: '^8.23.1',
  pino: '^10.4.0',
  qrcode: '^1.5.4',
  standardwebhooks: '^1.1.1',
  'rate-limit-redis': '^6.0.1',
  redis: '^6.3.1',
  zod: '^4.6.7',
  // development
  '@biomejs/biome': '^2.6.8',
  '@types/bcrypt': '^6.0.0',
  '@types/better-sqlite3': '^9.6.0',
  '@types/cors': '^2.8.19',
  '@types/express': '^5.0.6',
  '@types/jsonwebtoken': '^9.0.10',
  '@types/node': '^20.19.0',
  '@types/nodemailer': '^8.0.2',
  '@types/pg': '^8.15.6',
  '@types/qrcode': '^1.5.6',
  prisma: '7.10.0',
  tsx: '^4.23.15',
  typescript: '5.9.3',
  vitest: '^4.1.12',
};

/**
 * Versions a project forces on a package that one of its dependencies (`under`) asks for, written to
 * package.json as npm and bun `overrides`, pnpm `pnpm.overrides` and yarn `resolutions`.
 */
export interface PackageOverride {
  name: string;
  version: string;
  under: string;
}

export const PACKAGE_OVERRIDES: readonly PackageOverride[] = [
  // @prisma/adapter-libsql 7.10 asks for @libsql/client ^0.17, which leaks one open file per
  // interactive transaction; 0.18.0 fixes it. Remove once the adapter asks for ^0.18.
  { name: '@libsql/client', version: '^0.18.0', under: '@prisma/adapter-libsql' },
  // vite 8.4.0 (2026-11-26), which vitest installs, lists an optional dependency that the npm
  // registry does not have (napi-windows-process-start-time: 404). npm leaves it out of the lock
  // file and then `npm ci` calls the lock out of sync; yarn 1 and 4 refuse to install at all. Keep
  // vitest on vite 8.3 until a vite release installs from the registry again.
  { name: 'vite', version: '~8.3.8', under: 'vitest' },
];

/** Splits "name@range" (a pack may pin its own version) or looks the name up in the table (a release's own, for an earlier release). */
export function resolvePackageVersion(spec: string, versions: Readonly<Record<string, string>> = PACKAGE_VERSIONS): [name: string, version: string] {
  const at = spec.lastIndexOf('@');
  if (at > 0) return [spec.slice(0, at), spec.slice(at + 1)];
  const version = versions[spec];
  if (!version) {
    throw new Error(`No version for package '${spec}' in the version table (src/core/versions.ts). Add it there.`);
  }
  return [spec, version];
}
