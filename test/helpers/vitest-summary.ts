import { expect } from 'vitest';

/**
 * Asserts that a generated app's `npm test` output ends in a summary where every test passed:
 * "Tests  N passed (N)", with no failed, skipped or todo count. Only the summary lines are read,
 * so a test whose name says "failed" (an event for a failed sign-in) is not taken for a failure.
 */
export function expectEveryTestPassed(output: string): number {
  const plain = output.replace(/\u001b\[[0-9;]*m/g, '');
  const summary = /^\s*Tests\s+(.+)$/m.exec(plain)?.[1]?.trim();
  expect(summary, 'no "Tests" summary line in the output').toBeDefined();
  const counted = /^(\d+) passed \((\d+)\)$/.exec(summary!);
  expect(counted, `not every test passed: "Tests  ${summary}"`).not.toBeNull();
  expect(counted![1]).toBe(counted![2]);
  expect(Number(counted![1])).toBeGreaterThan(0);
  return Number(counted![1]);
}
