import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/run-cli.js';
import { SLOW_FILES } from '../sequencer.js';

describe('the test order (test/sequencer.ts)', () => {
  it('names only test files that exist, each once, so a renamed file cannot drop out of the front unnoticed', () => {
    for (const file of SLOW_FILES) {
      expect(file, file).toMatch(/^test\/.+\.test\.ts$/);
      expect(existsSync(path.join(ROOT, file)), file).toBe(true);
    }
    expect(new Set(SLOW_FILES).size).toBe(SLOW_FILES.length);
  });
});
