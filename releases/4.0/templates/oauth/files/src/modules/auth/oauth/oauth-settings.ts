import { z } from 'zod';

/** A setting that may be empty. */
export const optional = z
  .string()
  .trim()
  .optional()
  .transform((value) => value || undefined);

/** A URL setting that may be empty. */
export const optionalUrl = optional.pipe(z.url().optional());

type ClientSettings<Prefix extends string> = Record<`${Prefix}_CLIENT_ID` | `${Prefix}_CLIENT_SECRET`, typeof optional> &
  Record<`${Prefix}_CALLBACK_URL`, typeof optionalUrl>;

/**
 * PREFIX_CLIENT_ID, PREFIX_CLIENT_SECRET and PREFIX_CALLBACK_URL of a provider. All optional: a
 * provider without a client id is reported as not configured, and the app still starts.
 */
export function clientSettings<Prefix extends string>(prefix: Prefix): ClientSettings<Prefix> {
  return {
    [`${prefix}_CLIENT_ID`]: optional,
    [`${prefix}_CLIENT_SECRET`]: optional,
    [`${prefix}_CALLBACK_URL`]: optionalUrl,
  } as ClientSettings<Prefix>;
}

/** A provider endpoint, overridable by env (GitHub Enterprise, self-hosted GitLab, a test provider). */
export const endpoint = (defaultUrl: string) => z.url().default(defaultUrl);

/** The client credentials once both are set; a provider without them is not configured. */
export function clientCredentials(clientId: string | undefined, clientSecret: string | undefined) {
  return clientId && clientSecret ? { clientId, clientSecret } : undefined;
}
