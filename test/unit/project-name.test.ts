import { spawnSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageNameProblem, projectNameProblem } from '../../src/core/project-name.js';

interface Validation {
  validForNewPackages: boolean;
  validForOldPackages: boolean;
  warnings?: string[];
}

/**
 * npm's own rule: the validate-npm-package-name that the npm on PATH bundles. Found from npm's own
 * script (bin/npm-cli.js), not from `npm root -g`: under another Node (CI's Node 22 and 24 jobs) the
 * global prefix is that Node's, which has no npm of its own.
 */
function npmValidate(): (name: string) => Validation {
  const npmBin = spawnSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).stdout.trim();
  const npmDir = path.dirname(path.dirname(realpathSync(npmBin)));
  return createRequire(import.meta.url)(path.join(npmDir, 'node_modules/validate-npm-package-name')) as (name: string) => Validation;
}

const NAMES = [
  'my-app', 'a.b_c-d', '1app', 'x', 'a'.repeat(214), 'a'.repeat(215),
  'node_modules', 'favicon.ico', 'NODE_MODULES', 'Favicon.ICO',
  'http', 'events', 'fs', 'node:test',
  '_app', '.app', '-app', ' app', 'app ', 'a b', '', 'A', 'MyApp',
  'a~b', "a'b", 'a!b', 'a(b)', 'a*b', 'a+b', 'a%b', 'a@b', 'a$b', 'a/b', 'café', 'app\u202e',
];

describe('project names: every name npm refuses for a new package is refused (issue 31, item 7)', () => {
  it("agrees with npm's validate-npm-package-name, except core module names, which npm only warns about", () => {
    const validate = npmValidate();
    for (const name of NAMES) {
      const npm = validate(name);
      const onlyCoreModule = npm.validForOldPackages && npm.warnings?.length === 1 && npm.warnings[0] === `${name} is a core module name`;
      expect(packageNameProblem(name) === undefined, JSON.stringify(name)).toBe(npm.validForNewPackages || onlyCoreModule);
    }
  });

  it("refuses npm's reserved names as a folder, in any case, saying why", () => {
    expect(projectNameProblem('apps/node_modules')).toBe("'node_modules' is a name npm reserves: it refuses 'node_modules' and 'favicon.ico' as package names. Choose another name.");
    expect(projectNameProblem('Favicon.ico')).toMatch(/^'Favicon\.ico' is a name npm reserves/);
    expect(projectNameProblem('http')).toBeUndefined();
    expect(projectNameProblem('My App')).toMatch(/^'My App' cannot be an npm package name/);
  });
});
