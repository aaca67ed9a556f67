import { z } from 'zod';
import commonPasswordList from './common-passwords.json' with { type: 'json' };

export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 128;

/** The 10,000 most common passwords of 8+ characters (SecLists' top-1M list), lowercased. */
const commonPasswords = new Set<string>(commonPasswordList);

/** Counts characters as people do (code points), not UTF-16 units. */
const length = (value: string) => [...value].length;

/** 8 to 128 characters of any kind; no composition rules; common passwords refused. Not trimmed. */
export const newPassword = z
  .string({ error: 'password is required' })
  .refine((value) => length(value) >= MIN_PASSWORD_LENGTH, `password must be at least ${MIN_PASSWORD_LENGTH} characters`)
  .refine((value) => length(value) <= MAX_PASSWORD_LENGTH, `password must be at most ${MAX_PASSWORD_LENGTH} characters`)
  .refine((value) => !commonPasswords.has(value.toLowerCase()), 'this password is too common; choose another');

/** A password being checked (login, current password): any non-empty string up to the maximum. */
export const enteredPassword = z
  .string({ error: 'password is required' })
  .min(1, 'password is required')
  .refine((value) => length(value) <= MAX_PASSWORD_LENGTH, `password must be at most ${MAX_PASSWORD_LENGTH} characters`);
