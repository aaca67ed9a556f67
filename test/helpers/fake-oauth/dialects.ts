/**
 * How each provider words its token endpoint's answers. Most speak RFC 6749 JSON; GitHub answers
 * form-encoded (JSON only on request) and errors with HTTP 200; Slack wraps everything in
 * `{ ok }` with HTTP 200; Twitch sends `scope` as an array and errors as `{ status, message }`;
 * Facebook errors as `{ error: { message, type, code, fbtrace_id } }`.
 */
import { randomBytes } from 'node:crypto';
import { sendForm, sendJson, type Exchange } from './http.js';

/** What went wrong at the token endpoint, in neutral words each dialect translates. */
export type TokenErrorKind =
  | 'invalid_request'
  | 'unknown_client'
  | 'bad_secret'
  | 'unauthorized_client'
  | 'invalid_grant'
  | 'redirect_uri_mismatch'
  | 'unsupported_grant_type';

export interface TokenFields {
  access_token: string;
  expires_in?: number;
  refresh_token?: string;
  scope: string[];
  id_token?: string;
}

export interface TokenDialect {
  success(ex: Exchange, fields: TokenFields): void;
  error(ex: Exchange, kind: TokenErrorKind, description: string): void;
}

/** Error codes per dialect that do not read the same as the neutral kind. */
const RFC_CODES: Partial<Record<TokenErrorKind, string>> = {
  unknown_client: 'invalid_client',
  bad_secret: 'invalid_client',
  redirect_uri_mismatch: 'invalid_grant',
};
const GITHUB_CODES: Partial<Record<TokenErrorKind, string>> = {
  unknown_client: 'incorrect_client_credentials',
  bad_secret: 'incorrect_client_credentials',
  invalid_grant: 'bad_verification_code',
};
const SLACK_CODES: Partial<Record<TokenErrorKind, string>> = {
  unknown_client: 'invalid_client_id',
  bad_secret: 'bad_client_secret',
  invalid_grant: 'invalid_code',
  redirect_uri_mismatch: 'bad_redirect_uri',
  unsupported_grant_type: 'invalid_grant_type',
  invalid_request: 'invalid_arguments',
};
/** Twitch `{status}` and Facebook Graph error `code` per kind. */
const TWITCH_STATUS: Partial<Record<TokenErrorKind, number>> = { unknown_client: 403, bad_secret: 403 };
const FACEBOOK_CODES: Partial<Record<TokenErrorKind, number>> = { unknown_client: 101, bad_secret: 1 };

function codeOf(table: Partial<Record<TokenErrorKind, string>>, kind: TokenErrorKind): string {
  return table[kind] ?? kind;
}

function wantsJson(ex: Exchange): boolean {
  return (ex.req.headers.accept ?? '').toLowerCase().includes('application/json');
}

/** RFC 6749 JSON; the token_type spelling and invalid_client status vary (X says "bearer", Apple 400). */
export function rfcDialect(tokenType = 'Bearer', invalidClientStatus = 401): TokenDialect {
  return {
    success(ex, { scope, ...fields }) {
      sendJson(ex, 200, { ...fields, token_type: tokenType, scope: scope.join(' ') });
    },
    error(ex, kind, description) {
      const error = codeOf(RFC_CODES, kind);
      const status = error === 'invalid_client' || error === 'unauthorized_client' ? invalidClientStatus : 400;
      sendJson(ex, status, { error, error_description: description }, error);
    },
  };
}

export const githubDialect: TokenDialect = {
  success(ex, { access_token, scope }) {
    const fields = { access_token, scope: scope.join(','), token_type: 'bearer' };
    if (wantsJson(ex)) sendJson(ex, 200, fields);
    else sendForm(ex, 200, fields);
  },
  error(ex, kind, description) {
    const error = codeOf(GITHUB_CODES, kind);
    const fields = {
      error,
      error_description: description,
      error_uri: 'https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors/',
    };
    if (wantsJson(ex)) sendJson(ex, 200, fields, error);
    else sendForm(ex, 200, fields, error);
  },
};

export const slackDialect: TokenDialect = {
  success(ex, { scope: _scope, ...fields }) {
    sendJson(ex, 200, { ok: true, ...fields, token_type: 'Bearer' });
  },
  error(ex, kind) {
    const error = codeOf(SLACK_CODES, kind);
    sendJson(ex, 200, { ok: false, error }, error);
  },
};

export const twitchDialect: TokenDialect = {
  success(ex, fields) {
    sendJson(ex, 200, { ...fields, token_type: 'bearer' });
  },
  error(ex, kind, description) {
    const status = TWITCH_STATUS[kind] ?? 400;
    sendJson(ex, status, { status, message: description }, codeOf(RFC_CODES, kind));
  },
};

export const facebookDialect: TokenDialect = {
  success(ex, { access_token, expires_in }) {
    sendJson(ex, 200, { access_token, token_type: 'bearer', expires_in });
  },
  error(ex, kind, description) {
    graphError(ex, 400, description, FACEBOOK_CODES[kind] ?? 100, 'OAuthException', codeOf(RFC_CODES, kind));
  },
};

/** A Graph API error body, as Facebook sends for token and `/me` failures alike. */
export function graphError(ex: Exchange, status: number, message: string, code: number, type: string, outcome: string): void {
  const fbtrace_id = randomBytes(8).toString('base64url');
  sendJson(ex, status, { error: { message, type, code, fbtrace_id } }, outcome);
}
