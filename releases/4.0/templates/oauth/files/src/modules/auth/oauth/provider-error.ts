/** The error codes a failed OAuth callback redirects with. */
export type OAuthErrorCode = 'access_denied' | 'invalid_state' | 'account_exists' | 'email_required' | 'identity_in_use' | 'provider_error';

/**
 * Something the provider did wrong (a bad token answer, a bad id_token, an endpoint that failed or
 * did not answer in time). The reason is logged; the browser only sees provider_error.
 */
export class ProviderError extends Error {}

/** A ProviderError thrown inside a library call (openid-client wraps it as the cause), or a new one with `reason`. */
export function providerErrorOf(error: unknown, reason: string): ProviderError {
  if (error instanceof ProviderError) return error;
  const cause = (error as { cause?: unknown } | undefined)?.cause;
  return cause instanceof ProviderError ? cause : new ProviderError(reason);
}
