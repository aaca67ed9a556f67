/** A mistake in what the user asked for: unknown flag or id, bad version, bad config. Exit code 2. */
export class UsageError extends Error {
  readonly exitCode = 2;
}

/** A step that failed for another reason (install, database, disk). Exit code 1. */
export class StepError extends Error {
  readonly exitCode = 1;
  constructor(
    readonly step: string,
    message: string,
    readonly retry?: string,
  ) {
    super(message);
  }
}

/** A template pack or module manifest that does not follow the format. */
export class ManifestError extends Error {
  readonly exitCode = 2;
}

/** Ctrl-C at a prompt: nothing was written, and the prompt already said so. Exit code 130. */
export class CancelledError extends Error {
  readonly exitCode = 130;
}

/**
 * Ctrl-C (SIGINT) during a long step, after the project was written. The message names what is on
 * disk and how to finish. Exit code 130.
 */
export class InterruptedError extends Error {
  readonly exitCode = 130;
  constructor(
    readonly step: string,
    message: string,
    readonly retry?: string,
  ) {
    super(message);
  }
}
