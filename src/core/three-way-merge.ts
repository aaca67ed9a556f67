import { diff3Merge } from 'node-diff3';

export interface MergeResult {
  /** The merged text; on a conflict, with git-style markers around each conflicting region. */
  text: string;
  /** 1-based line numbers in `text` where each conflict starts (its <<<<<<< line). */
  conflictLines: number[];
}

function lines(text: string): string[] {
  return text.split('\n');
}

function sameLines(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((line, index) => line === b[index]);
}

/**
 * When `side` is the base region with lines only added before or after it (`before ++ base ++
 * after`), those lines; undefined otherwise, and when the base region stands in `side` more than
 * once (where the added lines go would be a guess).
 */
function insertionsAround(side: string[], base: string[]): { before: string[]; after: string[] } | undefined {
  if (side.length <= base.length) return undefined;
  let found: number | undefined;
  for (let start = 0; start + base.length <= side.length; start++) {
    if (!sameLines(side.slice(start, start + base.length), base)) continue;
    if (found !== undefined) return undefined;
    found = start;
  }
  return found === undefined ? undefined : { before: side.slice(0, found), after: side.slice(found + base.length) };
}

/**
 * A region that a line merge calls a conflict but where one side only added lines at its edges:
 * both sides' lines, in the order they stand.
 * - Both sides only inserted at one point (an empty base region): the user's lines, then the new
 *   render's. This is the README's "Add your own route" recipe meeting a module or a release that
 *   adds its own import after the last import and its own router before the not-found handler.
 * - One side only added lines before or after the base region, the other changed the region: the
 *   changed region with the added lines around it (an insert beside a line the render changed).
 * Anything else stays a conflict.
 */
function resolveInsertions(mine: string[], base: string[], theirs: string[]): string[] | undefined {
  if (base.length === 0) return [...mine, ...theirs];
  const mineAdded = insertionsAround(mine, base);
  if (mineAdded) return [...mineAdded.before, ...theirs, ...mineAdded.after];
  const theirsAdded = insertionsAround(theirs, base);
  if (theirsAdded) return [...theirsAdded.before, ...mine, ...theirsAdded.after];
  return undefined;
}

/** Resolves a conflicting region of a kind of file by what its lines mean, or leaves it (undefined). */
export type RegionResolver = (mine: string[], base: string[], theirs: string[]) => string[] | undefined;

export interface MergeOptions {
  /** Who made the new render, in the conflict markers: `create-gatekit add`, `create-gatekit upgrade`. */
  theirs?: string;
  /** Tried on a region resolveInsertions leaves in conflict (.env.example: variable by variable). */
  resolve?: RegionResolver;
}

/**
 * Three-way merge of a file Gatekit generated (`base`), the user's version (`mine`) and the new
 * render (`theirs`), by line, with node-diff3. Changes on both sides that are identical are not
 * conflicts, and neither are lines one side only inserted where the other side inserted or changed
 * lines too (resolveInsertions).
 */
export function threeWayMerge(mine: string, base: string, theirs: string, options: MergeOptions = {}): MergeResult {
  const regions = diff3Merge(lines(mine), lines(base), lines(theirs), { excludeFalseConflicts: true });
  const out: string[] = [];
  const conflictLines: number[] = [];
  for (const region of regions) {
    if (region.ok) {
      out.push(...region.ok);
      continue;
    }
    const conflict = region.conflict!;
    const resolved = resolveInsertions(conflict.a, conflict.o, conflict.b) ?? options.resolve?.(conflict.a, conflict.o, conflict.b);
    if (resolved) {
      out.push(...resolved);
      continue;
    }
    conflictLines.push(out.length + 1);
    out.push('<<<<<<< your version', ...conflict.a, '=======', ...conflict.b, `>>>>>>> ${options.theirs ?? 'create-gatekit add'}`);
  }
  return { text: out.join('\n'), conflictLines };
}
