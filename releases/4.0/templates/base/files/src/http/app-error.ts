export interface ErrorDetail {
  path: string;
  message: string;
}

/** The one error type. The error handler turns it into { error: { code, message, details } }. */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const unauthenticated = (message = 'A valid Bearer token is required.') =>
  new AppError(401, 'UNAUTHENTICATED', message, undefined, { 'WWW-Authenticate': 'Bearer realm="api"' });

export const notFound = (message = 'Not found.') => new AppError(404, 'NOT_FOUND', message);

export const forbidden = (message = 'You are not allowed to do this.') => new AppError(403, 'FORBIDDEN', message);

export const invalidToken = (message = 'The token is invalid, expired or already used.') =>
  new AppError(401, 'INVALID_TOKEN', message);

/** A route that exists, asked with a method it does not answer; `Allow` lists the ones it does. */
export const methodNotAllowed = (allowed: string[]) =>
  new AppError(405, 'METHOD_NOT_ALLOWED', `Use ${allowed.join(' or ')} for this route.`, undefined, { Allow: allowed.join(', ') });
