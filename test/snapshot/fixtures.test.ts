import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixtureNames } from '../helpers/fixtures.js';
import { fixtureSnapshot, moduleSnapshot, renderAll } from './tree-snapshots.js';

// Record after an intended template change: npx vitest run test/snapshot -u
const SNAPSHOTS = path.join(import.meta.dirname, '__snapshots__');
const names = fixtureNames();
const rendered = renderAll(names);
const moduleIds = [...rendered.modules.keys()].sort();

describe('module files (each distinct rendering once)', () => {
  for (const id of moduleIds) {
    it(`${id} matches its snapshot`, async () => {
      await expect(moduleSnapshot(rendered, id)).toMatchFileSnapshot(`./__snapshots__/modules/${id}.txt`);
    });
  }
});

describe('fixtures (composed files and every file hash)', () => {
  for (const name of names) {
    it(`${name} matches its snapshot`, async () => {
      await expect(fixtureSnapshot(rendered, name)).toMatchFileSnapshot(`./__snapshots__/fixtures/${name}.txt`);
    });
  }
});

describe('snapshot folder', () => {
  it('holds no snapshot of a module or fixture that is gone (delete the files named here)', () => {
    const stale = (folder: string, expected: string[]) =>
      (existsSync(path.join(SNAPSHOTS, folder)) ? readdirSync(path.join(SNAPSHOTS, folder)) : [])
        .filter((file) => !expected.includes(file.replace(/\.txt$/, '')))
        .map((file) => `${folder}/${file}`);
    expect([...stale('modules', moduleIds), ...stale('fixtures', names)]).toEqual([]);
  });

  it('renders the same trees twice (apart from the secret)', () => {
    const again = renderAll(names);
    for (const name of names) expect(fixtureSnapshot(again, name)).toBe(fixtureSnapshot(rendered, name));
    for (const id of moduleIds) expect(moduleSnapshot(again, id)).toBe(moduleSnapshot(rendered, id));
  });
});
