import type { Reporter } from './reporter.js';

export async function runPackCheck(dir: string, _flags: { writeMigrations?: boolean; typecheck?: boolean }, reporter: Reporter): Promise<void> {
  reporter.info(`pack check ${dir}: not implemented yet`);
}
