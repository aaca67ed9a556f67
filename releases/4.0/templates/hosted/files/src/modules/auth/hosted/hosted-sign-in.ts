import type { AppContext } from '../../../context.js';
import { AppError } from '../../../http/app-error.js';
import { completeLogin, type LoginResult } from '../complete-login.js';
import { signInWithIdentity } from '../identities/identity-sign-in.js';
import type { ProviderProfile } from '../identities/provider-profile.js';
import type { SignIn } from '../sessions.js';

/** A hosted service as its exchange names it: the module id (the identity's provider) and a display name. */
export interface HostedService {
  id: string;
  name: string;
}

/** Who the service says signed in; `emailVerified` only from the service's trustworthy source. */
export type HostedProfile = Omit<ProviderProfile, 'provider' | 'type'>;

/** A service whose variables are not all set: the app runs without it. */
export function serviceNotConfigured(service: HostedService, variables: string[]): AppError {
  return new AppError(404, 'PROVIDER_NOT_CONFIGURED', `${service.name} is not configured on this server (set ${variables.join(', ')}).`);
}

const accountExists = (service: HostedService) =>
  new AppError(
    409,
    'ACCOUNT_EXISTS',
    `An account with this email already exists, and ${service.name} does not report the address verified. Sign in to that account instead.`,
  );

const emailRequired = (service: HostedService) =>
  new AppError(403, 'FORBIDDEN', `${service.name} reports no email address for this user; an account here needs one.`);

/**
 * Every hosted exchange ends here: the service's identity maps to a user by
 * the linking rules of the identity table (a verified email links, and takes a provisional account
 * over; an unverified one equal to a user's never links), then completeLogin answers with the
 * token response, or the mfa answer for a user with two-factor on.
 */
export async function signInWithService(ctx: AppContext, service: HostedService, profile: HostedProfile, signIn: SignIn): Promise<LoginResult> {
  const result = await signInWithIdentity(ctx, { ...profile, provider: service.id, type: 'hosted' });
  if ('refused' in result) {
    ctx.logger.warn({ provider: service.id, refused: result.refused }, 'hosted sign-in refused');
    throw result.refused === 'email_required' ? emailRequired(service) : accountExists(service);
  }
  return completeLogin(ctx, result.user, signIn);
}
