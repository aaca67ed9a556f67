import type { Database, LoadedModule } from './manifest.js';
import { PACKAGE_OVERRIDES, PACKAGE_VERSIONS, resolvePackageVersion, type PackageOverride } from './versions.js';

/** The version table a package.json is composed with: this release's, or an earlier release's (release-profile.ts). */
export interface VersionTable {
  packageVersions: Readonly<Record<string, string>>;
  packageOverrides: readonly PackageOverride[];
}

const CURRENT_VERSIONS: VersionTable = { packageVersions: PACKAGE_VERSIONS, packageOverrides: PACKAGE_OVERRIDES };

/** Merges every module's scripts and packages into the project's package.json. */
export function composePackageJson(modules: LoadedModule[], projectName: string, db: Database, versions: VersionTable = CURRENT_VERSIONS): string {
  const sortedVersions = (specs: string[]): Record<string, string> =>
    Object.fromEntries(specs.map((spec) => resolvePackageVersion(spec, versions.packageVersions)).sort(([a], [b]) => a.localeCompare(b)));
  const manifests = modules.map((module) => module.manifest);
  const scripts = Object.assign({}, ...manifests.map((manifest) => manifest.scripts)) as Record<string, string>;
  const dependencies = manifests.flatMap((manifest) => [
    ...manifest.dependencies,
    ...(manifest.databaseDependencies[db] ?? []),
  ]);
  const devDependencies = manifests.flatMap((manifest) => [
    ...manifest.devDependencies,
    ...(manifest.databaseDevDependencies[db] ?? []),
  ]);
  const overrides = Object.fromEntries(
    versions.packageOverrides
      .filter((override) => dependencies.includes(override.under) || devDependencies.includes(override.under))
      .map((override) => [override.name, override.version]),
  );
  const packageJson = {
    name: projectName,
    version: '0.1.0',
    private: true,
    type: 'module',
    engines: { node: '^20.19 || ^22.12 || >=24' },
    scripts,
    dependencies: sortedVersions([...new Set(dependencies)]),
    // A package the app runs with is a dependency, even where one module needs it only for its tests.
    devDependencies: sortedVersions([...new Set(devDependencies)].filter((name) => !dependencies.includes(name))),
    // npm and bun read `overrides`, yarn `resolutions`; pnpm 11+ reads no settings from package.json,
    // so its overrides go to pnpm-workspace.yaml (package-managers.ts).
    ...(Object.keys(overrides).length > 0 && { overrides, resolutions: overrides }),
  };
  return `${JSON.stringify(packageJson, null, 2)}\n`;
}
