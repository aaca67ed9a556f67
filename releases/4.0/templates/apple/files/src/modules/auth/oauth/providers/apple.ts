import { createPrivateKey } from 'node:crypto';
import { endpoint, optional, optionalUrl } from '../oauth-settings.js';
import { oidcProvider } from '../oidc-provider.js';
import { displayNameOf } from '../profile-fields.js';

/** Apple has no client secret to configure: the app signs one (see signedClientSecret below). */
export const appleConfig = {
  APPLE_CLIENT_ID: optional,
  APPLE_CALLBACK_URL: optionalUrl,
  APPLE_TEAM_ID: optional,
  APPLE_KEY_ID: optional,
  /** The .p8 key; in one line with \n escapes, as .env files hold it. */
  APPLE_PRIVATE_KEY: optional.transform((value) => value?.replace(/\\n/g, '\n')),
  APPLE_ISSUER: endpoint('https://appleid.apple.com'),
};

/** Apple's client secret is a short-lived ES256 JWT signed with the .p8 key (at most 6 months; 5 minutes here). */
const CLIENT_SECRET_SECONDS = 5 * 60;

/** The name Apple sends once, in the first callback's `user` form field (a JSON string). */
function nameFromUserField(user: string | undefined): string | null {
  try {
    const { name } = JSON.parse(user ?? '{}') as { name?: { firstName?: string; lastName?: string } };
    return displayNameOf([name?.firstName, name?.lastName].filter(Boolean).join(' '));
  } catch {
    return null;
  }
}

/**
 * Sign in with Apple: the callback is a cross-site form post (response_mode=form_post), no PKCE,
 * booleans may be strings ("true"), no userinfo endpoint, and no client secret to configure: the
 * app signs one from APPLE_TEAM_ID, APPLE_KEY_ID and APPLE_PRIVATE_KEY.
 */
export const apple = oidcProvider({
  id: 'apple',
  name: 'Apple',
  issuer: (config) => config.APPLE_ISSUER,
  credentials: (config) =>
    config.APPLE_CLIENT_ID && config.APPLE_TEAM_ID && config.APPLE_KEY_ID && config.APPLE_PRIVATE_KEY ? { clientId: config.APPLE_CLIENT_ID } : undefined,
  callbackUrl: (config) => config.APPLE_CALLBACK_URL,
  pkce: 'never',
  scopes: ['name', 'email'],
  authorizationParams: { response_mode: 'form_post' },
  formPost: true,
  signedClientSecret: async (config, clientId) => {
    // jose loads with the first Apple sign-in, not at start: importing it costs tens of milliseconds.
    const { SignJWT } = await import('jose');
    return new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: config.APPLE_KEY_ID! })
      .setIssuer(config.APPLE_TEAM_ID!)
      .setSubject(clientId)
      .setAudience(config.APPLE_ISSUER)
      .setIssuedAt()
      .setExpirationTime(`${CLIENT_SECRET_SECONDS}s`)
      .sign(createPrivateKey(config.APPLE_PRIVATE_KEY!));
  },
  fromCallback: (params) => {
    const name = nameFromUserField(params.user);
    return name ? { name } : {};
  },
});
