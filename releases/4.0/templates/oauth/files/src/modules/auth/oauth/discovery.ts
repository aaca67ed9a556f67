import type { ServerMetadata } from 'openid-client';
import type { Config } from '../../../config.js';
import type { OidcProvider } from './oauth-provider.js';
import { ProviderError, providerErrorOf } from './provider-error.js';
import { limitedFetch, PROVIDER_TIMEOUT_SECONDS } from './provider-http.js';

const CACHE_MS = 60 * 60 * 1000;
const cache = new Map<string, { metadata: ServerMetadata; expiresAt: number }>();

/** Plain http endpoints are for local providers in development and tests only. */
export function insecureAllowed(config: Config, url: string): boolean {
  return config.NODE_ENV !== 'production' && url.startsWith('http:');
}

/** An endpoint the app may call or send a browser to: an https URL (http outside production). */
export function usableEndpoint(config: Config, value: unknown): value is string {
  if (typeof value !== 'string' || !URL.canParse(value)) return false;
  const { protocol } = new URL(value);
  return protocol === 'https:' || (protocol === 'http:' && insecureAllowed(config, value));
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

/** Why a discovery document cannot be used, or undefined when it can. */
function problemOf(config: Config, metadata: ServerMetadata, issuer: string): string | undefined {
  if (typeof metadata.issuer !== 'string' || !namesIssuer(metadata.issuer, issuer)) return `names another issuer: ${String(metadata.issuer)}`;
  for (const name of ['authorization_endpoint', 'token_endpoint'] as const) {
    if (!usableEndpoint(config, metadata[name])) return `has no usable ${name}`;
  }
  for (const name of ['jwks_uri', 'userinfo_endpoint'] as const) {
    if (metadata[name] !== undefined && !usableEndpoint(config, metadata[name])) return `has an unusable ${name}`;
  }
  return undefined;
}

/**
 * The provider's discovery document, checked (the issuer, https endpoints in production), and
 * cached for an hour; a failure or a document that fails the checks is not cached.
 */
export async function discover(config: Config, provider: OidcProvider): Promise<ServerMetadata> {
  const issuer = provider.issuer(config);
  const cached = cache.get(issuer);
  if (cached && cached.expiresAt > Date.now()) return cached.metadata;
  const url = new URL(`${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`);
  if (!usableEndpoint(config, url.href)) throw new ProviderError(`discovery of ${issuer} needs https in production`);
  let metadata: ServerMetadata;
  try {
    // openid-client is loaded with the first sign-in through a provider, not at start: importing it costs tens of milliseconds.
    const client = await import('openid-client');
    const discovered = await client.discovery(url, 'discovery', undefined, undefined, {
      timeout: PROVIDER_TIMEOUT_SECONDS,
      [client.customFetch]: limitedFetch,
      execute: insecureAllowed(config, url.href) ? [client.allowInsecureRequests] : [],
    });
    metadata = discovered.serverMetadata();
  } catch (error) {
    throw providerErrorOf(error, `discovery of ${issuer} failed: ${(error as Error).message}`);
  }
  const problem = problemOf(config, metadata, issuer);
  if (problem) throw new ProviderError(`the discovery document of ${issuer} ${problem}`);
  cache.set(issuer, { metadata, expiresAt: Date.now() + CACHE_MS });
  return metadata;
}
