/**
 * Whether a person answers prompts: stdin is a TTY, CI is not set, and neither --yes nor --json
 * was given. Otherwise the CLI never waits for input.
 */
export function isTerminal(flags: { yes?: boolean; json?: boolean }): boolean {
  return Boolean(process.stdin.isTTY) && !process.env.CI && !flags.yes && !flags.json;
}

/** Whether progress may animate (a spinner): a person is there and stdout is a terminal too. */
export function canAnimate(flags: { yes?: boolean; json?: boolean }): boolean {
  return Boolean(process.stdout.isTTY) && !process.env.CI && !flags.json;
}
