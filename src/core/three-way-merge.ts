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

/**
 * Three-way merge of a file Gatekit generated (`base`), the user's version (`mine`) and the new
 * render (`theirs`), by line, with node-diff3. Changes on both sides that are identical are not
 * conflicts.
 */
export function threeWayMerge(mine: string, base: string, theirs: string, labels = { mine: 'your version', theirs: 'create-gatekit add' }): MergeResult {
  const regions = diff3Merge(lines(mine), lines(base), lines(theirs), { excludeFalseConflicts: true });
  const out: string[] = [];
  const conflictLines: number[] = [];
  for (const region of regions) {
    if (region.ok) {
      out.push(...region.ok);
      continue;
    }
    const conflict = region.conflict!;
    conflictLines.push(out.length + 1);
    out.push(`<<<<<<< ${labels.mine}`, ...conflict.a, '=======', ...conflict.b, `>>>>>>> ${labels.theirs}`);
  }
  return { text: out.join('\n'), conflictLines };
}
