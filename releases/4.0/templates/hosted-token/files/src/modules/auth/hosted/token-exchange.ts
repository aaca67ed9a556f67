import { Router } from 'express';
import type { Config } from '../../../config.js';
import type { AppContext } from '../../../context.js';
import { AppError, invalidToken } from '../../../http/app-error.js';
import { warnNotConfigured } from '../not-configured.js';
import { sendLoginResult } from '../refresh-transport.js';
import { signInFrom } from '../sessions.js';
import { serviceNotConfigured, signInWithService, type HostedProfile, type HostedService } from './hosted-sign-in.js';
import { ServiceUnavailable, TokenRefused } from './service-errors.js';

/** A hosted service whose front-end SDK hands out tokens the app exchanges for its own. */
export interface TokenService<Settings> extends HostedService {
  /** The variables to set; named by the 404 while the service is not configured. */
  requiredEnv: string[];
  /** The service's settings, or undefined while a required variable is empty. */
  settings(config: Config): Settings | undefined;
  /**
   * Verifies the token (pinned algorithms, exact issuer and audience, keys never from the token)
   * and returns its subject. Throws TokenRefused, or ServiceUnavailable when the keys cannot be had.
   */
  verify(token: string, settings: Settings): Promise<string>;
  /** Asks the service's API who the subject is. Throws TokenRefused or ServiceUnavailable. */
  profile(subject: string, token: string, settings: Settings): Promise<HostedProfile>;
}

/** Three base64url parts; the signature may be empty (`alg: none`), which the verifier refuses. */
const BEARER = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*)$/i;

const serviceUnavailable = (service: HostedService) =>
  new AppError(503, 'SERVICE_UNAVAILABLE', `${service.name} did not answer in time. Try again shortly.`);

async function identifyOrFail<Settings>(ctx: AppContext, service: TokenService<Settings>, token: string, settings: Settings): Promise<HostedProfile> {
  try {
    return await service.profile(await service.verify(token, settings), token, settings);
  } catch (error) {
    // The reason names a check or a path, never the token.
    if (error instanceof TokenRefused) {
      ctx.logger.warn({ provider: service.id, reason: error.message }, 'hosted token refused');
      throw invalidToken(`The ${service.name} token is invalid or expired.`);
    }
    if (error instanceof ServiceUnavailable) {
      ctx.logger.error({ provider: service.id, reason: error.message }, 'hosted service unavailable');
      throw serviceUnavailable(service);
    }
    throw error;
  }
}

/**
 * POST /api/auth/{service}/exchange: `Authorization: Bearer <the service's token>`
 * in, the app's token response (or the mfa answer) out. Rate limited per client IP; 404
 * PROVIDER_NOT_CONFIGURED while the service's variables are empty.
 */
export function createTokenExchangeRoutes<Settings>(ctx: AppContext, service: TokenService<Settings>): Router {
  const router = Router();
  const settings = service.settings(ctx.config);
  if (settings === undefined) warnNotConfigured(ctx.config, ctx.logger, service.name, service.requiredEnv);

  router.post(`/api/auth/${service.id}/exchange`, ctx.rateLimit(`${service.id}-exchange`), async (req, res) => {
    if (settings === undefined) throw serviceNotConfigured(service, service.requiredEnv);
    const token = BEARER.exec(req.headers.authorization ?? '')?.[1];
    if (!token) throw invalidToken(`Send the ${service.name} token as Authorization: Bearer <token>.`);
    const profile = await identifyOrFail(ctx, service, token, settings);
    sendLoginResult(req, res, ctx.config, await signInWithService(ctx, service, profile, signInFrom(req, service.id)));
  });

  return router;
}
