import { cleanDisplayName } from '../display-name.js';
import { emailAddress } from '../email-address.js';

/** A string claim, or undefined. */
export function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** One plain address, lowercased, or null: a provider's odd value never becomes an account email. */
export function plainEmail(value: unknown): string | null {
  const parsed = emailAddress.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** A name that follows the app's rules (one line, no control characters), or null. */
export function displayNameOf(...candidates: unknown[]): string | null {
  return cleanDisplayName(candidates.map(text).find(Boolean));
}

/** An http(s) picture URL, or null. */
export function imageOf(value: unknown): string | null {
  const url = text(value);
  return url && /^https?:\/\//.test(url) && url.length <= 2048 ? url : null;
}
