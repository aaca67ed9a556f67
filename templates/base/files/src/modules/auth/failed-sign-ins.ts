import type { AppContext } from '../../context.js';
import { AppError } from '../../http/app-error.js';
import { recordEvent } from './events.js';

/**
 * Runs a sign-in step; when it is refused (401 or 403: a wrong password, a used link, a bad code, a
 * ban), records auth.sign_in_failed with the method and the reason (the error's code) before the
 * answer goes out. Nothing changed, so the event stands alone; it names no secret, and not the
 * address tried.
 */
export async function recordingFailures<Result>(ctx: AppContext, method: string, signIn: () => Promise<Result>): Promise<Result> {
  try {
    return await signIn();
  } catch (error) {
    if (error instanceof AppError && (error.status === 401 || error.status === 403)) {
      await recordEvent(ctx, ctx.prisma, {
        action: 'auth.sign_in_failed',
        actor: { type: 'user', id: null },
        metadata: { method, reason: error.code.toLowerCase() },
      });
    }
    throw error;
  }
}
