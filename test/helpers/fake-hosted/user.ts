/** The user description every fake service accepts, and its defaults. */
import { hex } from './ids.js';

export interface HostedUser {
  /** The service's user id; generated in the service's format when absent. */
  id?: string;
  /** Default `user-<random>@example.com`; `null` means the user has no email address at all. */
  email?: string | null;
  /** Default true. */
  emailVerified?: boolean;
  name?: string;
  picture?: string;
}

export interface ResolvedUser {
  email: string | null;
  emailVerified: boolean;
  name?: string;
  picture?: string;
  /** When the user was "created" (a minute before it was added). */
  createdAt: Date;
}

export function resolveUser(user: HostedUser): ResolvedUser {
  return {
    email: user.email === undefined ? `user-${hex(4)}@example.com` : user.email,
    emailVerified: user.emailVerified ?? true,
    name: user.name,
    picture: user.picture,
    createdAt: new Date(Date.now() - 60_000),
  };
}

/** The id to store a user under: the given one, or a new one; a given id already in use is an error. */
export function newUserId(users: Map<string, unknown>, given: string | undefined, generate: () => string): string {
  if (given !== undefined && users.has(given)) throw new Error(`A user with id ${given} was already added.`);
  return given ?? generate();
}
