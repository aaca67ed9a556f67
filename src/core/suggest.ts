/** Levenshtein distance, small and good enough for ids of a few characters. */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length]!;
}

/** The closest candidate when it is close enough to be a typo, else undefined. */
export function closestMatch(value: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const d = distance(value.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return bestDistance <= Math.max(1, Math.floor(value.length / 3)) ? best : undefined;
}

/** "did you mean 'x'? " or "" */
export function didYouMean(value: string, candidates: readonly string[]): string {
  const match = closestMatch(value, candidates);
  return match ? `Did you mean '${match}'? ` : '';
}
