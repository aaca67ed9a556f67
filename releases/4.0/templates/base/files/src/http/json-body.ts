import express, { type RequestHandler } from 'express';
import { AppError } from './app-error.js';

export const BODY_LIMIT = '100kb';

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function hasBody(req: Parameters<RequestHandler>[0]): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * The few routes that take an HTML form post instead of JSON (a provider posting its callback
 * cross-site); modules add theirs when their router is created.
 */
const formBodyRoutes = new Set<string>();

export function allowFormBody(path: string): void {
  formBodyRoutes.add(path);
}

const acceptsForm = (req: Parameters<RequestHandler>[0]) => formBodyRoutes.has(req.path) && Boolean(req.is('application/x-www-form-urlencoded'));

const readJson = express.json({ limit: BODY_LIMIT, strict: true, type: ['application/json', 'application/*+json'] });

/**
 * Parses JSON objects and arrays up to 100 kB; parse errors go to the error handler. A body on a
 * JSON route must be JSON: anything else is 415 before it is read. A request without a body (every
 * GET) goes straight on: one check instead of two middlewares and the parser's own.
 */
export const parseJsonBody: RequestHandler = (req, res, next) => {
  if (!hasBody(req)) {
    next();
    return;
  }
  if (METHODS_WITH_BODY.has(req.method) && !req.is(['application/json', 'application/*+json']) && !acceptsForm(req)) {
    next(new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the request body as application/json.'));
    return;
  }
  readJson(req, res, next);
};
