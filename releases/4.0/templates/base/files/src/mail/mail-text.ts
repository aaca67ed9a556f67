import { cleanDisplayName } from '../modules/auth/display-name.js';

/**
 * Text a user chose (a display name, an organization name) as it may appear in a mail sent from
 * the app's address: one line, in quotes, and with anything that looks like a link broken up
 * ("evil.example" becomes "evil[.]example"), so that the only link a mail client shows is the
 * app's own.
 */
export function quoteUserText(value: string | null | undefined, fallback: string): string {
  const text = (cleanDisplayName(value) ?? fallback).replace(/:\/\//g, '[:]//').replace(/([\p{L}\p{N}-])\.(?=[\p{L}\p{N}])/gu, '$1[.]');
  return `"${text.replace(/"/g, "'")}"`;
}
