import type { RequestHandler } from 'express';
import { notFound } from './app-error.js';

/** A percent-encoded control character: %00 to %1F, or %7F. */
const ENCODED_CONTROL_CHARACTER = /%(?:[01][0-9a-f]|7f)/i;

/**
 * No route, id, slug or token contains a control character, and databases such as PostgreSQL
 * cannot even compare text with a NUL byte in it. A path that spells one (/api/organizations/%00)
 * names nothing, so it is answered 404 before any route reads its parameters. The path itself is
 * never logged (src/http/request-log.ts).
 */
export const refuseControlCharactersInPath: RequestHandler = (req, _res, next) => {
  next(ENCODED_CONTROL_CHARACTER.test(req.path) ? notFound('No such route.') : undefined);
};
