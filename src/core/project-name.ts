import path from 'node:path';

const PROJECT_NAME = /^[a-z0-9][a-z0-9._-]*$/;

/** The npm package name a project folder gives: its last part, lowercased. */
export function projectNameFor(directory: string): string {
  return path.basename(path.resolve(directory)).toLowerCase();
}

/** Why `directory` cannot name an npm package (the npm name rule, on its last part), else undefined. */
export function projectNameProblem(directory: string): string | undefined {
  const name = projectNameFor(directory);
  if (PROJECT_NAME.test(name) && name.length <= 214) return undefined;
  return `'${path.basename(directory)}' cannot be an npm package name. Use lowercase letters, digits, '-', '.' or '_', starting with a letter or digit.`;
}
