/**
 * Issuers, endpoint URLs, discovery documents and JWKS of the OIDC providers. Every issuer is
 * `${url}/{id}`, except microsoft: `${url}/microsoft/{tenant}/v2.0`, whose multi-tenant discovery
 * (common, organizations) says `{tenantid}` literally, like login.microsoftonline.com.
 */
import { isTenantGuid } from './claims.js';
import type { ProviderSpec } from './spec.js';
import type { FakeContext } from './state.js';
import type { Endpoint } from './types.js';
import { MSA_TENANT_ID } from './users.js';

export const DISCOVERY_PATH = '/.well-known/openid-configuration';
export const MICROSOFT_TENANTS = ['common', 'organizations', 'consumers'];

export function isKnownTenant(tenant: string): boolean {
  return MICROSOFT_TENANTS.includes(tenant) || isTenantGuid(tenant);
}

/** The issuer for a microsoft tenant segment, or (`tenant` omitted) of any other provider. */
export function issuerOf(fake: FakeContext, spec: ProviderSpec, tenant = ''): string {
  return spec.id === 'microsoft' ? `${fake.baseUrl}/microsoft/${tenant}/v2.0` : `${fake.baseUrl}/${spec.id}`;
}

/** What microsoft's discovery for a tenant segment says the issuer is. */
function discoveredIssuer(fake: FakeContext, spec: ProviderSpec, tenant: string): string {
  if (tenant === 'consumers') return issuerOf(fake, spec, MSA_TENANT_ID);
  return issuerOf(fake, spec, isTenantGuid(tenant) ? tenant : '{tenantid}');
}

export function endpointUrl(fake: FakeContext, spec: ProviderSpec, endpoint: Endpoint, tenant = 'common'): string | undefined {
  const pattern = spec.routes[endpoint] ?? (endpoint === 'discovery' ? DISCOVERY_PATH : undefined);
  return pattern && `${fake.baseUrl}/${spec.id}${pattern.replace('{tenant}', tenant)}`;
}

const AUTH_METHOD_NAMES: Record<string, string> = { apple_client_secret_jwt: 'client_secret_post' };

export function discoveryDocument(fake: FakeContext, spec: ProviderSpec, tenant: string): Record<string, unknown> {
  const url = (endpoint: Endpoint) => endpointUrl(fake, spec, endpoint, tenant);
  return {
    issuer: discoveredIssuer(fake, spec, tenant),
    authorization_endpoint: url('authorize'),
    token_endpoint: url('token'),
    ...(spec.routes.userinfo ? { userinfo_endpoint: url('userinfo') } : {}),
    jwks_uri: url('jwks'),
    response_types_supported: ['code'],
    response_modes_supported: spec.formPost ? ['query', 'fragment', 'form_post'] : ['query'],
    subject_types_supported: [spec.id === 'microsoft' ? 'pairwise' : 'public'],
    id_token_signing_alg_values_supported: ['RS256'],
    scopes_supported: spec.scopes,
    token_endpoint_auth_methods_supported: [...new Set(spec.clientAuth.map((method) => AUTH_METHOD_NAMES[method] ?? method))],
    ...(spec.pkce.advertised ? { code_challenge_methods_supported: spec.pkce.methods } : {}),
    ...(spec.claimsParameter ? { claims_parameter_supported: true } : {}),
  };
}

export function jwks(fake: FakeContext, spec: ProviderSpec): { keys: unknown[] } {
  return { keys: [fake.keys[spec.id]!.jwk] };
}
