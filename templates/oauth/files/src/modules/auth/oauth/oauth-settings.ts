import { z } from 'zod';

const optionalSetting = z
  .string()
  .trim()
  .optional()
  .transform((value) => value || undefined);

const optionalUrl = optionalSetting.pipe(z.url().optional());

type ClientSettings<Prefix extends string> = Record<`${Prefix}_CLIENT_ID` | `${Prefix}_CLIENT_SECRET`, typeof optionalSetting> &
  Record<`${Prefix}_CALLBACK_URL`, typeof optionalUrl>;

/**
 * PREFIX_CLIENT_ID, PREFIX_CLIENT_SECRET and PREFIX_CALLBACK_URL of a provider. All optional: a
 * provider without a client id is reported as not configured, and the app still starts.
 */
export function clientSettings<Prefix extends string>(prefix: Prefix): ClientSettings<Prefix> {
  return {
    [`${prefix}_CLIENT_ID`]: optionalSetting,
    [`${prefix}_CLIENT_SECRET`]: optionalSetting,
    [`${prefix}_CALLBACK_URL`]: optionalUrl,
  } as ClientSettings<Prefix>;
}

/** A provider endpoint, overridable by env (GitHub Enterprise, self-hosted GitLab, a test provider). */
export const endpoint = (defaultUrl: string) => z.url().default(defaultUrl);

/** A setting that may be empty. */
export const optional = optionalSetting;

/** The client credentials once both are set; a provider without them is not configured. */
export function clientCredentials(clientId: string | undefined, clientSecret: string | undefined) {
  return clientId && clientSecret ? { clientId, clientSecret } : undefined;
}
