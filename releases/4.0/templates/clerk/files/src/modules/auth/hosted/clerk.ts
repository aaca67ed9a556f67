import type { Config } from '../../../config.js';
import type { AppContext } from '../../../context.js';
import { displayNameOf, imageOf, plainEmail } from '../identities/profile-fields.js';
import type { HostedProfile } from './hosted-sign-in.js';
import { ServiceUnavailable, TokenRefused } from './service-errors.js';
import { getServiceJson } from './service-http.js';
import { createTokenExchangeRoutes, type TokenService } from './token-exchange.js';
import { checkTokenTimes } from './token-times.js';

interface ClerkSettings {
  secretKey: string;
  jwtKey: string;
  issuer: string;
  authorizedParties: string[];
  apiUrl: string;
}

/** The parts of the Backend API's User object the profile needs. */
interface ClerkUser {
  first_name?: string | null;
  last_name?: string | null;
  username?: string | null;
  image_url?: string | null;
  primary_email_address_id?: string | null;
  email_addresses?: { id: string; email_address: string; verification?: { status?: string } | null }[];
}

/** A publishable key is pk_test_ or pk_live_ and the base64 of "<Frontend API host>$"; its issuer is that host over https. */
function frontendApiOf(publishableKey: string | undefined): string | undefined {
  const encoded = publishableKey?.match(/^pk_(?:test|live)_([A-Za-z0-9+/=]+)$/)?.[1];
  const decoded = encoded ? Buffer.from(encoded, 'base64').toString('utf8') : '';
  return /^[a-z0-9.-]+\$$/i.test(decoded) ? `https://${decoded.slice(0, -1)}` : undefined;
}

function settingsOf(config: Config): ClerkSettings | undefined {
  const issuer = config.CLERK_ISSUER ?? frontendApiOf(config.CLERK_PUBLISHABLE_KEY);
  const authorizedParties = config.CLERK_AUTHORIZED_PARTIES?.split(',').map((party) => party.trim()).filter(Boolean) ?? [];
  if (!config.CLERK_SECRET_KEY || !config.CLERK_JWT_KEY || !issuer || authorizedParties.length === 0) return undefined;
  return { secretKey: config.CLERK_SECRET_KEY, jwtKey: config.CLERK_JWT_KEY, issuer, authorizedParties, apiUrl: config.CLERK_API_URL.replace(/\/+$/, '') };
}

/** Clerk's session tokens live 60 seconds; one that lives longer than an hour was not minted by Clerk's front end. */
const MAX_SESSION_TOKEN_LIFETIME_SECONDS = 60 * 60;

/**
 * A Clerk session token, verified offline with CLERK_JWT_KEY: RS256/384/512 only, signature,
 * `exp`/`nbf`/`iat`, and `azp` in CLERK_AUTHORIZED_PARTIES (a token without `azp` is refused).
 * verifyToken does not compare `iss` unless asked, nor bound the lifetime (exp - iat), so both
 * checks are ours; a session still pending (`sts: "pending"`) is not signed in yet.
 */
async function verifySessionToken(token: string, settings: ClerkSettings): Promise<string> {
  // Clerk's SDK is loaded on the first exchange, so apps that never see one start without it.
  const { verifyToken } = await import('@clerk/backend');
  let claims: Record<string, unknown>;
  try {
    claims = await verifyToken(token, { jwtKey: settings.jwtKey, authorizedParties: settings.authorizedParties });
  } catch (error) {
    throw new TokenRefused(`clerk ${(error as { reason?: string }).reason ?? 'token refused'}`);
  }
  if (claims.iss !== settings.issuer) throw new TokenRefused('clerk iss is not CLERK_ISSUER');
  checkTokenTimes('clerk', claims, MAX_SESSION_TOKEN_LIFETIME_SECONDS);
  if (claims.sts === 'pending') throw new TokenRefused('clerk session is pending');
  return claims.sub as string;
}

/** The user's primary address from the Backend API, verified only when Clerk says `verified`. */
async function fetchProfile(userId: string, settings: ClerkSettings): Promise<HostedProfile> {
  const { status, body } = await getServiceJson('clerk', `${settings.apiUrl}/v1/users/${encodeURIComponent(userId)}`, {
    authorization: `Bearer ${settings.secretKey}`,
  });
  if (status === 404) throw new TokenRefused('clerk user no longer exists');
  if (status !== 200 || typeof body !== 'object' || body === null) {
    throw new ServiceUnavailable(`clerk Backend API answered HTTP ${status}${status === 401 ? ' (check CLERK_SECRET_KEY)' : ''}`);
  }
  const user = body as ClerkUser;
  const primary = user.email_addresses?.find((address) => address.id === user.primary_email_address_id);
  return {
    providerAccountId: userId,
    email: plainEmail(primary?.email_address),
    emailVerified: primary?.verification?.status === 'verified',
    name: displayNameOf([user.first_name, user.last_name].filter(Boolean).join(' '), user.username),
    image: imageOf(user.image_url),
  };
}

/** Clerk: session tokens from Clerk's front-end SDK, exchanged for the app's own. */
export const clerk: TokenService<ClerkSettings> = {
  id: 'clerk',
  name: 'Clerk',
  requiredEnv: ['CLERK_SECRET_KEY', 'CLERK_JWT_KEY', 'CLERK_AUTHORIZED_PARTIES', 'CLERK_ISSUER (or CLERK_PUBLISHABLE_KEY)'],
  settings: settingsOf,
  verify: verifySessionToken,
  profile: (subject, _token, settings) => fetchProfile(subject, settings),
};

export const createClerkRoutes = (ctx: AppContext) => createTokenExchangeRoutes(ctx, clerk);
