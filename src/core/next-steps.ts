import { runCommand, type PackageManager } from './choices.js';
import type { LoadedModule, OAuthProviderEntry } from './manifest.js';

/**
 * What to do after `create-gatekit` or `add`: the commands to type, in order and together (so they
 * can be copied as one block), then the notes of the chosen modules (credentials to create,
 * settings to fill in), which the app does not need to start.
 */
export interface NextSteps {
  commands: string[];
  notes: string[];
}

/** The callback URL to register at an OAuth provider, under the app's public URL. */
export function oauthCallbackUrl(apiUrl: string, provider: Pick<OAuthProviderEntry, 'id'>): string {
  return `${apiUrl}/api/auth/${provider.id}/callback`;
}

/** Where to create an OAuth provider's credentials (the provider's data), the callback URL to register there, and what to set. */
function oauthNextStep(provider: OAuthProviderEntry, apiUrl: string): string {
  const variables = provider.requiredEnv.join(', ');
  const where = provider.setup.console ? `at ${provider.setup.console}` : 'in your identity provider';
  return `${provider.name}: create credentials ${where} with the callback URL ${oauthCallbackUrl(apiUrl, provider)}, then set ${variables} in .env`;
}

/** `cd` into the app (when given), install and migrate when the run did not, then start it. */
export function nextCommands(options: { cd?: string; pm: PackageManager; installed: boolean }): string[] {
  const run = runCommand(options.pm);
  return [...(options.cd ? [`cd ${options.cd}`] : []), ...(options.installed ? [] : [`${options.pm} install`, `${run} db:migrate`]), `${run} dev`];
}

/** Each module's notes and each OAuth provider's setup (its callback URL under `apiUrl`), in module order. */
export function setupNotes(modules: LoadedModule[], apiUrl: string): string[] {
  return modules.flatMap(({ manifest }) => [...manifest.nextSteps, ...manifest.providers.oauth.map((provider) => oauthNextStep(provider, apiUrl))]);
}

/** The steps as one list (the JSON summaries' `nextSteps`): the commands, then the notes. */
export function stepList(steps: NextSteps): string[] {
  return [...steps.commands, ...steps.notes];
}
