import type { Config } from '../../config.js';
import type { Logger } from '../../logger.js';

/**
 * Outside production, says at start-up that a chosen provider or service stays off and which
 * variables turn it on: otherwise its button or route is simply missing, with no hint why.
 */
export function warnNotConfigured(config: Config, logger: Logger, name: string, variables: string[]): void {
  if (config.NODE_ENV === 'production') return;
  logger.warn({ notConfigured: name, set: variables }, `${name} is not configured: set ${variables.join(', ')} in .env to turn it on`);
}
