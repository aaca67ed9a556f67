import { clientCredentials, clientSettings, endpoint } from '../oauth-settings.js';
import { oidcProvider } from '../oidc-provider.js';

export const twitchConfig = {
  ...clientSettings('TWITCH'),
  TWITCH_ISSUER: endpoint('https://id.twitch.tv/oauth2'),
};

/** Twitch puts email, email_verified, picture and the username in the id_token only when asked for them. */
const requestedClaims = { email: null, email_verified: null, picture: null, preferred_username: null };

/** Twitch: OpenID Connect, PKCE when its discovery document offers it, claims asked for by name. */
export const twitch = oidcProvider({
  id: 'twitch',
  name: 'Twitch',
  issuer: (config) => config.TWITCH_ISSUER,
  credentials: (config) => clientCredentials(config.TWITCH_CLIENT_ID, config.TWITCH_CLIENT_SECRET),
  callbackUrl: (config) => config.TWITCH_CALLBACK_URL,
  pkce: 'if-offered',
  scopes: ['openid', 'user:read:email'],
  authorizationParams: { claims: JSON.stringify({ id_token: requestedClaims, userinfo: requestedClaims }) },
});
