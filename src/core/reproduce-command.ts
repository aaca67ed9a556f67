import type { Choices } from './choices.js';
import type { ModuleChoices } from './choosable-modules.js';
import type { PackRef } from './packs.js';

/**
 * The command line that generates the same project again (recorded in gatekit.json), from the
 * resolved choices: every feature module with its own flag that the template version offers is
 * named on or off, so a later change of defaults does not change what the command makes.
 */
export function reproduceCommand(projectName: string, modules: ModuleChoices, choices: Pick<Choices, 'db' | 'templateVersion' | 'pm'>, packs: PackRef[]): string {
  const parts = ['npx create-gatekit', projectName, '--yes'];
  parts.push('--auth', modules.auth.length > 0 ? modules.auth.join(',') : '""');
  parts.push('--oauth', modules.oauth.length > 0 ? modules.oauth.join(',') : 'none');
  if (modules.hosted.length > 0) parts.push('--hosted', modules.hosted.join(','));
  if (modules.modules.length > 0) parts.push('--modules', modules.modules.join(','));
  for (const [id, on] of Object.entries(modules.toggles)) parts.push(`--${on ? '' : 'no-'}${id}`);
  parts.push('--db', choices.db, '--template-version', choices.templateVersion, '--pm', choices.pm);
  for (const pack of packs) parts.push('--pack', pack.path ?? pack.spec);
  return parts.join(' ');
}
