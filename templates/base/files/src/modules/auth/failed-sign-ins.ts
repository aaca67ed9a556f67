import type { AppContext } from '../../context.js';
import { AppError } from '../../http/app-error.js';
import { recordEventAlone, userRef } from './events.js';

/**
 * A refused sign-in step that knew whose account it was for (a wrong password for an existing
 * address, a wrong second factor): its event names that account as the target, so the owner sees
 * it in their activity. The answer is the same as the error's.
 */
export class RefusedSignIn extends AppError {
  constructor(
    readonly userId: string,
    error: AppError,
  ) {
    super(error.status, error.code, error.message, error.details, error.headers);
  }
}

/** Runs a step of a sign-in for a known account; an AppError it throws names that account. */
export async function forAccount<Result>(userId: string, step: () => Promise<Result>): Promise<Result> {
  try {
    return await step();
  } catch (error) {
    throw error instanceof AppError && !(error instanceof RefusedSignIn) ? new RefusedSignIn(userId, error) : error;
  }
}

/**
 * Runs a sign-in step; when it is refused (401 or 403: a wrong password, a used link, a bad code, a
 * ban), records auth.sign_in_failed with the method and the reason (the error's code) before the
 * answer goes out. Nothing changed, so the event stands alone; it names no secret, and not the
 * address tried (people type passwords into the address field); its target is the account only
 * when the step knew it (RefusedSignIn).
 */
export async function recordingFailures<Result>(ctx: AppContext, method: string, signIn: () => Promise<Result>): Promise<Result> {
  try {
    return await signIn();
  } catch (error) {
    if (error instanceof AppError && (error.status === 401 || error.status === 403)) {
      await recordEventAlone(ctx, {
        action: 'auth.sign_in_failed',
        actor: { type: 'user', id: null },
        target: error instanceof RefusedSignIn ? userRef(error.userId) : null,
        metadata: { method, reason: error.code.toLowerCase() },
      });
    }
    throw error;
  }
}
