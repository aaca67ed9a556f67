import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Test files that take minutes but are small on disk, slowest first (471 s down to 62 s in CI on
 * 2026-11-29). Without its cache of earlier durations, which a fresh clone (CI) does not have,
 * vitest starts the largest files first; these would then start last, and one of the two workers
 * would run alone at the end. The other slow files (audit, pages, production-postgresql) are large
 * enough to start early anyway.
 */
export const SLOW_FILES = [
  'test/runtime/orgs-postgresql.test.ts',
  'test/runtime/signing-keys.test.ts',
  'test/runtime/package-managers.test.ts',
  'test/runtime/add-sqlite.test.ts',
  'test/runtime/docker.test.ts',
  'test/runtime/full.test.ts',
  'test/runtime/add-postgresql.test.ts',
  'test/runtime/upgrade-postgresql.test.ts',
  'test/runtime/totp.test.ts',
  'test/runtime/hosted-postgresql.test.ts',
  'test/runtime/upgrade-sqlite.test.ts',
  'test/runtime/orgs-sqlite.test.ts',
  'test/runtime/magic-link.test.ts',
  'test/runtime/passkey-postgresql.test.ts',
  'test/runtime/oauth-postgresql.test.ts',
  'test/runtime/minimal.test.ts',
  'test/runtime/postgresql.test.ts',
  'test/runtime/pack-check.test.ts',
  'test/runtime/pages-sessions.test.ts',
  'test/runtime/security-races.test.ts',
  'test/runtime/cli-install.test.ts',
];

/** Vitest's own order (its cache, else size), with SLOW_FILES moved to the front in their order. */
export class SlowFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const index = SLOW_FILES.indexOf(relative(file.project.config.root, file.moduleId).split('\\').join('/'));
      return index === -1 ? SLOW_FILES.length : index;
    };
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}
