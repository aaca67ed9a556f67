import type { OidcProvider } from './oauth-provider.js';

type Required = Pick<OidcProvider, 'id' | 'name' | 'issuer' | 'credentials' | 'callbackUrl'>;

/**
 * An OpenID Connect provider described by data: what most providers do (PKCE, the nonce checked,
 * openid email profile, client_secret_post) unless the description says otherwise.
 */
export function oidcProvider(description: Required & Partial<OidcProvider>): OidcProvider {
  return {
    protocol: 'oidc',
    pkce: 'always',
    nonce: 'required',
    scopes: ['openid', 'email', 'profile'],
    clientAuth: 'client_secret_post',
    ...description,
  };
}
