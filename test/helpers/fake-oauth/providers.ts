/**
 * The twelve providers as data: their real paths (under `/{id}`), client authentication, PKCE,
 * code and token lifetimes, token dialect, and the code that shapes their claims or profile.
 * PROVIDERS.md (sections 1-12) is the source for each row.
 */
import { appleClaims, gitlabClaims, microsoftClaims, slackClaims, standardClaims, twitchClaims } from './claims.js';
import { facebookDialect, githubDialect, rfcDialect, slackDialect, twitchDialect } from './dialects.js';
import { discordProfile } from './profiles/discord.js';
import { facebookProfile } from './profiles/facebook.js';
import { githubProfile } from './profiles/github.js';
import { twitterProfile } from './profiles/twitter.js';
import type { ProviderSpec } from './spec.js';
import type { ProviderId } from './types.js';

const TEN_MINUTES = 600;
const BASIC_AND_POST = ['client_secret_basic', 'client_secret_post'] as const;
const POST_ONLY = ['client_secret_post'] as const;
const OIDC_SCOPES = ['openid', 'profile', 'email'];
const OIDC_WITH_OFFLINE = [...OIDC_SCOPES, 'offline_access'];

/** What most providers share; each row below says only where it differs. */
const COMMON = {
  clientAuth: BASIC_AND_POST,
  dialect: rfcDialect(),
  codeLifetimeSeconds: TEN_MINUTES,
  tokenPrefix: '',
} satisfies Partial<ProviderSpec>;
type Routes = ProviderSpec['routes'];

function oauth2(displayName: string, routes: Routes, scopes: string[]) {
  return { ...COMMON, protocol: 'oauth2', displayName, routes, scopes } as const;
}

/** Standard OIDC: nonce echoed, standard claims, PKCE S256 advertised in discovery. */
function oidc(displayName: string, routes: Routes, scopes = OIDC_SCOPES) {
  const pkce = { methods: ['S256'], advertised: true } as const;
  return { ...COMMON, protocol: 'oidc', displayName, routes, scopes, pkce, echoesNonce: true, claims: standardClaims } as const;
}

const ROWS: { [P in ProviderId]: Omit<ProviderSpec, 'id'> } = {
  google: {
    ...oidc('Google', { authorize: '/o/oauth2/v2/auth', token: '/token', userinfo: '/v1/userinfo', jwks: '/oauth2/v3/certs' }),
    pkce: { methods: ['S256', 'plain'], advertised: true },
    accessTokenSeconds: 3599,
    tokenPrefix: 'ya29.',
    azp: true,
  },
  github: {
    ...oauth2(
      'GitHub',
      { authorize: '/login/oauth/authorize', token: '/login/oauth/access_token', userinfo: '/api/user', emails: '/api/user/emails' },
      ['read:user', 'user:email', 'user'],
    ),
    grantTypeOptional: true,
    dialect: githubDialect,
    pkce: { methods: ['S256'] },
    tokenPrefix: 'gho_',
    profile: githubProfile,
  },
  facebook: {
    ...oauth2(
      'Facebook',
      { authorize: '/v26.0/dialog/oauth', token: '/v26.0/oauth/access_token', userinfo: '/v26.0/me' },
      ['email', 'public_profile'],
    ),
    grantTypeOptional: true,
    tokenViaGet: true,
    dialect: facebookDialect,
    pkce: { methods: [] },
    accessTokenSeconds: 5_183_944,
    tokenPrefix: 'EAAG',
    profile: facebookProfile,
  },
  twitter: {
    ...oauth2(
      'X',
      { authorize: '/i/oauth2/authorize', token: '/2/oauth2/token', userinfo: '/2/users/me' },
      ['tweet.read', 'users.read', 'users.email', 'offline.access'],
    ),
    clientAuth: ['client_secret_basic'],
    dialect: rfcDialect('bearer'),
    pkce: { methods: ['S256', 'plain'], required: true },
    requiresState: true,
    codeLifetimeSeconds: 30,
    accessTokenSeconds: 7200,
    refreshToken: 'offline.access',
    profile: twitterProfile,
  },
  discord: {
    ...oauth2('Discord', { authorize: '/oauth2/authorize', token: '/api/oauth2/token', userinfo: '/api/users/@me' }, ['identify', 'email']),
    pkce: { methods: ['S256'] },
    accessTokenSeconds: 604_800,
    refreshToken: true,
    profile: discordProfile,
  },
  microsoft: {
    ...oidc(
      'Microsoft',
      {
        discovery: '/{tenant}/v2.0/.well-known/openid-configuration',
        authorize: '/{tenant}/oauth2/v2.0/authorize',
        token: '/{tenant}/oauth2/v2.0/token',
        jwks: '/{tenant}/discovery/v2.0/keys',
        userinfo: '/oidc/userinfo',
      },
      OIDC_WITH_OFFLINE,
    ),
    pkce: { methods: ['S256', 'plain'], advertised: true },
    accessTokenSeconds: 3599,
    refreshToken: 'offline_access',
    tokenPrefix: 'EwB',
    claims: microsoftClaims,
  },
  apple: {
    ...oidc('Apple', { authorize: '/auth/authorize', token: '/auth/token', jwks: '/auth/keys' }, ['openid', 'email', 'name']),
    clientAuth: ['apple_client_secret_jwt'],
    dialect: rfcDialect('Bearer', 400),
    pkce: { methods: ['S256'] },
    codeLifetimeSeconds: 300,
    accessTokenSeconds: 3600,
    refreshToken: true,
    tokenPrefix: 'a',
    idTokenWithoutOpenid: true,
    formPost: true,
    claims: appleClaims,
  },
  linkedin: {
    ...oidc(
      'LinkedIn',
      { authorize: '/oauth/v2/authorization', token: '/oauth/v2/accessToken', userinfo: '/v2/userinfo', jwks: '/oauth/openid/jwks' },
    ),
    clientAuth: POST_ONLY,
    pkce: { methods: [] },
    rejectsCodeVerifier: true,
    codeLifetimeSeconds: 1800,
    accessTokenSeconds: 5_184_000,
    tokenPrefix: 'AQV',
    echoesNonce: false,
  },
  gitlab: {
    ...oidc(
      'GitLab',
      { authorize: '/oauth/authorize', token: '/oauth/token', userinfo: '/oauth/userinfo', jwks: '/oauth/discovery/keys' },
      [...OIDC_SCOPES, 'read_user'],
    ),
    pkce: { methods: ['S256', 'plain'], advertised: true },
    accessTokenSeconds: 7200,
    refreshToken: true,
    tokenPrefix: 'glpat-',
    claims: gitlabClaims,
  },
  slack: {
    ...oidc(
      'Slack',
      {
        authorize: '/openid/connect/authorize',
        token: '/api/openid.connect.token',
        userinfo: '/api/openid.connect.userInfo',
        jwks: '/openid/connect/keys',
      },
    ),
    acceptsJsonTokenBody: true,
    dialect: slackDialect,
    pkce: { methods: ['S256'] },
    tokenPrefix: 'xoxp-',
    okEnvelope: true,
    claims: slackClaims,
  },
  twitch: {
    ...oidc(
      'Twitch',
      { authorize: '/oauth2/authorize', token: '/oauth2/token', userinfo: '/oauth2/userinfo', jwks: '/oauth2/keys' },
      ['openid', 'user:read:email'],
    ),
    clientAuth: POST_ONLY,
    dialect: twitchDialect,
    pkce: { methods: [] },
    accessTokenSeconds: 14_400,
    refreshToken: true,
    azp: true,
    claimsParameter: true,
    claims: twitchClaims,
  },
  oidc: {
    ...oidc('OpenID Connect', { authorize: '/authorize', token: '/token', userinfo: '/userinfo', jwks: '/jwks' }, OIDC_WITH_OFFLINE),
    accessTokenSeconds: 3600,
    refreshToken: 'offline_access',
  },
};

/** Each row with its id. */
export const PROVIDERS = Object.fromEntries(
  Object.entries(ROWS).map(([id, row]) => [id, { ...row, id: id as ProviderId }]),
) as Record<ProviderId, ProviderSpec>;
