import type { ServerMetadata } from 'openid-client';
import type { Config } from '../../../config.js';
import type { ProviderProfile } from '../identities/provider-profile.js';
import { authorizationUrl, redeemCode } from './authorization-request.js';
import { clientConfiguration } from './client-configuration.js';
import { discover } from './discovery.js';
import type { OAuthFlow } from './flow-cookie.js';
import { verifyIdToken } from './id-token.js';
import type { CallbackParams, Claims, ClientCredentials, OidcProvider } from './oauth-provider.js';
import { accountIdOf, displayNameOf, imageOf, isTrue, plainEmail, text } from './profile-fields.js';
import { ProviderError } from './provider-error.js';
import { getJson, type IdTokenSink } from './provider-http.js';

/** Whether the source that gave the email says it is verified, by the provider's rule. */
function verifiedBy(provider: OidcProvider, source: Claims): boolean {
  return provider.emailVerified ? provider.emailVerified(source) : isTrue(source.email_verified);
}

/**
 * The profile of a verified id_token (and userinfo), with the provider's own rules where it has
 * them. The email and whether it is verified come from the same source: the id_token when it has
 * an email, else userinfo; never one source's address with the other's verification claim.
 */
function profileOf(provider: OidcProvider, idClaims: Claims, userinfo: Claims | undefined, params: CallbackParams): ProviderProfile {
  const claims = { ...userinfo, ...idClaims };
  const providerAccountId = provider.accountId ? provider.accountId(claims) : accountIdOf(claims.sub);
  if (!providerAccountId) throw new ProviderError('the id_token has no account id');
  const emailSource = text(idClaims.email) || !userinfo ? idClaims : userinfo;
  return {
    provider: provider.id,
    type: 'oidc',
    providerAccountId,
    email: plainEmail(emailSource.email),
    emailVerified: verifiedBy(provider, emailSource),
    name: displayNameOf(claims.name, claims.preferred_username, claims.nickname),
    image: imageOf(claims.picture),
    ...provider.fromCallback?.(params),
  };
}

/** Userinfo, when the id_token left the email out; its `sub` must be the id_token's. */
async function userinfoFor(metadata: ServerMetadata, claims: Claims, accessToken: string): Promise<Claims | undefined> {
  if (text(claims.email) || !metadata.userinfo_endpoint) return undefined;
  const userinfo = (await getJson(metadata.userinfo_endpoint, accessToken)) as Claims;
  if (userinfo.sub !== claims.sub) throw new ProviderError('userinfo is about another subject than the id_token');
  return userinfo;
}

/**
 * The one strategy for OpenID Connect providers: discovery (the issuer checked), the code flow with
 * state, nonce and PKCE as the provider allows, and the id_token verified by verifyIdToken.
 */
export const oidcStrategy = {
  async start(config: Config, provider: OidcProvider, credentials: ClientCredentials, flow: Pick<OAuthFlow, 'returnTo' | 'linkUserId'>) {
    const metadata = await discover(config, provider);
    const configuration = await clientConfiguration(config, provider, credentials, metadata);
    const usePkce = provider.pkce === 'always' || (provider.pkce === 'if-offered' && (metadata.code_challenge_methods_supported ?? []).includes('S256'));
    const { randomNonce } = await import('openid-client');
    return authorizationUrl(config, configuration, provider, { ...flow, nonce: randomNonce() }, usePkce);
  },

  async finish(config: Config, provider: OidcProvider, credentials: ClientCredentials, flow: OAuthFlow, params: CallbackParams): Promise<ProviderProfile> {
    const metadata = await discover(config, provider);
    const sink: IdTokenSink = {};
    const configuration = await clientConfiguration(config, provider, credentials, metadata, sink);
    const tokens = await redeemCode(config, configuration, provider, flow, params);
    if (!sink.idToken) throw new ProviderError('the token answer has no id_token');
    const claims = await verifyIdToken(provider, metadata, sink.idToken, credentials.clientId, flow);
    return profileOf(provider, claims, await userinfoFor(metadata, claims, tokens.access_token), params);
  },
};
