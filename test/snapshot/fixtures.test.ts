import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fixtureNames, renderFixture } from '../helpers/fixtures.js';

const LARGE = 16 * 1024;

/** The rendered tree as one readable text; the random JWT_SECRET and large data files are summarised. */
function snapshotOf(name: string): string {
  const { tree } = renderFixture(name);
  return tree
    .entries()
    .map(([file, content]) => {
      let shown = content.replace(/^JWT_SECRET=.*$/m, 'JWT_SECRET=<random>');
      if (shown.length > LARGE) shown = `<${Buffer.byteLength(content)} bytes, sha256 ${createHash('sha256').update(content).digest('hex')}>\n`;
      return `===== ${file} =====\n${shown}`;
    })
    .join('\n');
}

describe('rendered trees', () => {
  for (const name of fixtureNames()) {
    it(`${name} matches its snapshot`, async () => {
      await expect(snapshotOf(name)).toMatchFileSnapshot(`./__snapshots__/${name}.txt`);
    });
  }

  it('renders the same tree twice (apart from the secret)', () => {
    for (const name of fixtureNames()) expect(snapshotOf(name)).toBe(snapshotOf(name));
  });
});
