import { text } from '../identities/profile-fields.js';

export { displayNameOf, imageOf, plainEmail, text } from '../identities/profile-fields.js';

/** A provider's id as a string: GitHub sends a number. */
export function accountIdOf(value: unknown): string | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : text(value);
}

/** Some providers send booleans as strings (Apple's "true"). */
export function isTrue(value: unknown): boolean {
  return value === true || value === 'true';
}
