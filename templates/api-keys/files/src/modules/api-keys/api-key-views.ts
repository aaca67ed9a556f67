/** An API key as the API shows it: never the key or its hash (the key is shown once, when made). */
export interface ApiKeyView {
  id: string;
  name: string;
  /** The first 12 characters of the key. */
  start: string;
  scopes: string[];
  /** The organization of an organization key; null for a user key. */
  organizationId: string | null;
  /** An organization key's role there (member or admin); null for a user key. */
  role: string | null;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  /** Who made it; null once that account is deleted (an organization key outlives it). */
  createdBy: { id: string; name: string | null } | null;
}

/** The columns every kind of key has. */
export interface StoredKey {
  id: string;
  name: string;
  start: string;
  scopes: string;
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
}

export function toApiKeyView(
  key: StoredKey,
  owner: { organizationId: string | null; role: string | null; createdBy: { id: string; name: string | null } | null },
): ApiKeyView {
  return {
    id: key.id,
    name: key.name,
    start: key.start,
    scopes: key.scopes.split(' '),
    ...owner,
    createdAt: key.createdAt.toISOString(),
    expiresAt: key.expiresAt?.toISOString() ?? null,
    lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
  };
}
