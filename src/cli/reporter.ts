/**
 * Where human output goes. With --json, stdout carries only the JSON summary and everything
 * meant for people goes to stderr.
 */
export interface Reporter {
  info(line: string): void;
  warn(line: string): void;
  /** Output that answers the command (file list, table); stdout unless --json. */
  result(text: string): void;
  json(value: unknown): void;
}

export function createReporter(json: boolean): Reporter {
  const human = (line: string) => (json ? process.stderr : process.stdout).write(`${line}\n`);
  return {
    info: human,
    warn: (line) => process.stderr.write(`${line}\n`),
    result: human,
    json: (value) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`),
  };
}
