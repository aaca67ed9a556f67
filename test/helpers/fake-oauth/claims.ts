/**
 * The OIDC claims each provider puts in its id_token and userinfo, beyond the registered ones.
 * Standard providers give email claims for the `email` scope and profile claims for `profile`.
 */
import type { ClaimsContext } from './spec.js';
import type { Authorization, FakeUser } from './types.js';
import { DEFAULT_TEAM_ID, DEFAULT_TENANT_ID, MSA_TENANT_ID, digest, firstAndLastName, isVerified, usernameOf } from './users.js';

type Claims = Record<string, unknown>;

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isTenantGuid(tenant: string | undefined): boolean {
  return GUID.test(tenant ?? '');
}

/** microsoft `tid`: the user's tenant, else the authorize URL's tenant GUID, else MSA for consumers. */
export function tenantOf(authorization: Authorization): string {
  const { user, tenant } = authorization;
  if (user.tenantId) return user.tenantId;
  if (isTenantGuid(tenant)) return tenant!;
  return tenant === 'consumers' ? MSA_TENANT_ID : DEFAULT_TENANT_ID;
}

function has(authorization: Authorization, scope: string): boolean {
  return authorization.scopes.includes(scope);
}

function emailClaims(user: FakeUser, target: ClaimsContext['target']): Claims {
  if (!user.email) return {};
  if (user.emailClaimsSplit) return target === 'id_token' ? { email_verified: true } : { email: user.email, email_verified: isVerified(user) };
  return { email: user.email, email_verified: isVerified(user) };
}

function profileClaims(user: FakeUser): Claims {
  const { firstName, lastName } = firstAndLastName(user);
  return user.name
    ? { name: user.name, given_name: firstName, family_name: lastName, ...(user.picture ? { picture: user.picture } : {}) }
    : {};
}

/** Email claims with the `email` scope, profile claims (plus `extra`) with `profile`. */
function scoped({ authorization, target }: ClaimsContext, extra: (user: FakeUser) => Claims = () => ({})): Claims {
  const { user } = authorization;
  return {
    ...(has(authorization, 'profile') ? { ...profileClaims(user), ...extra(user) } : {}),
    ...(has(authorization, 'email') ? emailClaims(user, target) : {}),
  };
}

export function standardClaims(context: ClaimsContext): Claims {
  return scoped(context);
}

export function gitlabClaims(context: ClaimsContext): Claims {
  return scoped(context, (user) => ({ nickname: usernameOf(user), preferred_username: usernameOf(user) }));
}

export function slackClaims(context: ClaimsContext): Claims {
  const { user } = context.authorization;
  return {
    'https://slack.com/user_id': user.id,
    'https://slack.com/team_id': user.teamId ?? DEFAULT_TEAM_ID,
    ...scoped(context),
  };
}

/** No `email_verified`: `xms_edov` only when the email's domain owner verified it. `sub` is pairwise. */
export function microsoftClaims({ authorization }: ClaimsContext): Claims {
  const { user, clientId } = authorization;
  const tid = tenantOf(authorization);
  const email = has(authorization, 'email') && user.email ? { email: user.email, ...(isVerified(user) ? { xms_edov: true } : {}) } : {};
  const profile = has(authorization, 'profile')
    ? { name: user.name, preferred_username: user.email ?? `${usernameOf(user)}@fake.onmicrosoft.com` }
    : {};
  return { ver: '2.0', tid, oid: user.id, sub: digest(`${tid}:${user.id}:${clientId}`, 'base64url'), ...profile, ...email };
}

/** Booleans as strings by default; email only with the `email` scope; never a name or picture. */
export function appleClaims({ authorization }: ClaimsContext): Claims {
  const { user } = authorization;
  if (!has(authorization, 'email') || !user.email) return { nonce_supported: true };
  const asWire = (value: boolean) => (user.appleStringBooleans === false ? value : String(value));
  return {
    nonce_supported: true,
    email: user.email,
    email_verified: asWire(isVerified(user)),
    is_private_email: asWire(user.email.endsWith('@privaterelay.appleid.com')),
    real_user_status: 2,
  };
}

/** Only the claims the `claims` parameter asked for, in the id_token or userinfo member. */
export function twitchClaims({ authorization, target }: ClaimsContext): Claims {
  const { user } = authorization;
  const available: Claims = {
    ...(user.email ? { email: user.email, email_verified: isVerified(user) } : {}),
    ...(user.picture ? { picture: user.picture } : {}),
    preferred_username: usernameOf(user),
  };
  const requested = Object.keys(authorization.claims?.[target] ?? {});
  return Object.fromEntries(requested.filter((name) => name in available).map((name) => [name, available[name]]));
}
