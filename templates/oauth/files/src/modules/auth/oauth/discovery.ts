import type { ServerMetadata } from 'openid-client';
import type { Config } from '../../../config.js';
import type { OidcProvider } from './oauth-provider.js';
import { ProviderError } from './provider-error.js';
import { PROVIDER_TIMEOUT_SECONDS } from './provider-http.js';

const CACHE_MS = 60 * 60 * 1000;
const cache = new Map<string, { metadata: ServerMetadata; expiresAt: number }>();

/** Plain http endpoints are for local providers in development and tests only. */
export function insecureAllowed(config: Config, url: string): boolean {
  return config.NODE_ENV !== 'production' && url.startsWith('http:');
}

/**
 * The discovery document must name exactly the configured issuer. A multi-tenant document names
 * `{tenantid}` where the configured issuer has a tenant (Microsoft's `common`): the placeholder
 * stands for that one path segment, and each id_token's `tid` fills it in (id-token.ts).
 */
function namesIssuer(discovered: string, configured: string): boolean {
  if (discovered === configured) return true;
  if (!discovered.includes('{tenantid}')) return false;
  const pattern = discovered.split('{tenantid}').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[^/]+');
  return new RegExp(`^${pattern}$`).test(configured);
}

/** The provider's discovery document, checked, and cached for an hour; failures are not cached. */
export async function discover(config: Config, provider: OidcProvider): Promise<ServerMetadata> {
  const issuer = provider.issuer(config);
  const cached = cache.get(issuer);
  if (cached && cached.expiresAt > Date.now()) return cached.metadata;
  const url = new URL(`${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`);
  let metadata: ServerMetadata;
  try {
    // openid-client is loaded with the first sign-in through a provider, not at start (docs/performance.md).
    const client = await import('openid-client');
    const discovered = await client.discovery(url, 'discovery', undefined, undefined, {
      timeout: PROVIDER_TIMEOUT_SECONDS,
      execute: insecureAllowed(config, url.href) ? [client.allowInsecureRequests] : [],
    });
    metadata = discovered.serverMetadata();
  } catch (error) {
    throw new ProviderError(`discovery of ${issuer} failed: ${(error as Error).message}`);
  }
  if (!namesIssuer(metadata.issuer, issuer)) throw new ProviderError(`discovery of ${issuer} names another issuer: ${metadata.issuer}`);
  cache.set(issuer, { metadata, expiresAt: Date.now() + CACHE_MS });
  return metadata;
}
