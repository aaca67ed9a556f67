import express, { type RequestHandler } from 'express';
import { AppError } from './app-error.js';

export const BODY_LIMIT = '100kb';

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function hasBody(req: Parameters<RequestHandler>[0]): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** A body on a JSON route must be JSON: anything else is 415 before it is read. */
export const requireJsonContentType: RequestHandler = (req, _res, next) => {
  if (METHODS_WITH_BODY.has(req.method) && hasBody(req) && !req.is(['application/json', 'application/*+json'])) {
    next(new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the request body as application/json.'));
    return;
  }
  next();
};

/** Parses JSON objects and arrays up to 100 kB; parse errors go to the error handler. */
export const parseJsonBody = express.json({ limit: BODY_LIMIT, strict: true, type: ['application/json', 'application/*+json'] });
