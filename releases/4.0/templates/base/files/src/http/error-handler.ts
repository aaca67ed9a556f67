import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from '../logger.js';
import { AppError, notFound } from './app-error.js';
import { isDatabaseUnavailable } from './database-errors.js';

/** Errors raised by express.json() (body-parser), by their `type`. */
const BODY_PARSER_ERRORS: Record<string, () => AppError> = {
  'entity.parse.failed': () => new AppError(400, 'INVALID_JSON', 'The request body is not valid JSON.'),
  'entity.too.large': () => new AppError(413, 'PAYLOAD_TOO_LARGE', 'The request body is larger than 100 kB.'),
  'encoding.unsupported': () => new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Unsupported content encoding.'),
  'charset.unsupported': () => new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Unsupported charset; send UTF-8 JSON.'),
  'request.aborted': () => new AppError(400, 'VALIDATION_ERROR', 'The request was aborted.'),
  'request.size.invalid': () => new AppError(400, 'VALIDATION_ERROR', 'The request size does not match Content-Length.'),
};

/**
 * Other client errors raised by Express and its parsers carry a 4xx status (a path that is not
 * valid percent-encoding, a corrupt compressed body). Their messages quote what the client sent,
 * which may be a token, so only the status reaches the log.
 */
function clientError(error: unknown, logger: Logger): AppError | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  if (typeof status !== 'number' || status < 400 || status > 499) return undefined;
  logger.warn({ status, type: (error as { type?: string }).type ?? (error as Error).name }, 'request could not be read');
  if (status === 413) return BODY_PARSER_ERRORS['entity.too.large']!();
  if (status === 415) return new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Unsupported content type or encoding.');
  return new AppError(400, 'VALIDATION_ERROR', 'The request could not be read: its path or body is malformed.');
}

function toAppError(error: unknown, logger: Logger): AppError {
  if (error instanceof AppError) return error;
  const bodyError = BODY_PARSER_ERRORS[(error as { type?: string })?.type ?? ''];
  if (bodyError) return bodyError();
  const malformed = clientError(error, logger);
  if (malformed) return malformed;
  if (isDatabaseUnavailable(error)) {
    logger.error({ err: error }, 'database unavailable');
    return new AppError(503, 'SERVICE_UNAVAILABLE', 'The service is temporarily unavailable. Try again shortly.');
  }
  logger.error({ err: error }, 'unhandled error');
  return new AppError(500, 'INTERNAL_ERROR', 'Something went wrong on our side.');
}

/** The one place that writes error responses: always { error: { code, message, details? } }. */
export function createErrorHandler(logger: Logger): ErrorRequestHandler {
  return (error, _req, res, _next) => {
    const appError = toAppError(error, logger);
    res.set(appError.headers);
    res.status(appError.status).json({
      error: {
        code: appError.code,
        message: appError.message,
        ...(appError.details ? { details: appError.details } : {}),
      },
    });
  };
}

export const notFoundHandler: RequestHandler = (_req, _res, next) => next(notFound('No such route.'));
