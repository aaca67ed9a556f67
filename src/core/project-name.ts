import path from 'node:path';

const PROJECT_NAME = /^[a-z0-9][a-z0-9._-]*$/;

/** Names npm refuses as package names whatever their case (validate-npm-package-name's exclusion list). */
const RESERVED_NAMES = ['node_modules', 'favicon.ico'];

/** The npm package name a project folder gives: its last part, lowercased. */
export function projectNameFor(directory: string): string {
  return path.basename(path.resolve(directory)).toLowerCase();
}

/**
 * Why npm refuses `name` as the name of a new package, else undefined; `shown` is how the user
 * typed it. A Node.js core module name (`http`, `events`) is accepted: npm only warns about it,
 * installs such a package, and the app is private, so it is never published.
 */
export function packageNameProblem(name: string, shown = name): string | undefined {
  if (RESERVED_NAMES.includes(name.toLowerCase())) {
    return `'${shown}' is a name npm reserves: it refuses ${RESERVED_NAMES.map((reserved) => `'${reserved}'`).join(' and ')} as package names. Choose another name.`;
  }
  if (PROJECT_NAME.test(name) && name.length <= 214) return undefined;
  return `'${shown}' cannot be an npm package name. Use lowercase letters, digits, '-', '.' or '_', starting with a letter or digit, at most 214 characters.`;
}

/** Why `directory` cannot name an npm package (the npm name rule, on its last part), else undefined. */
export function projectNameProblem(directory: string): string | undefined {
  return packageNameProblem(projectNameFor(directory), path.basename(directory));
}
