import type { Choices } from './choices.js';
import type { LoadedModule } from './manifest.js';
import { flaggedModules, packsUsedBy, type ModuleRegistry } from './registry.js';
import { isAvailableAt } from './releases.js';

/**
 * The command line that generates the same project again (recorded in gatekit.json). Every feature
 * module with its own flag that the template version offers is named on or off, so a later change
 * of defaults does not change what the command makes.
 */
export function reproduceCommand(projectName: string, choices: Choices, modules: LoadedModule[], registry: ModuleRegistry): string {
  const chosen = (module: LoadedModule) => modules.includes(module);
  const idsOf = (category: string) =>
    modules.filter((module) => module.manifest.category === category && !module.manifest.internal).map((module) => module.manifest.id);
  const direct = idsOf('direct');
  const oauth = idsOf('oauth');
  const hosted = idsOf('hosted');
  const features = modules.filter((module) => module.manifest.category === 'module' && !module.manifest.internal && !module.manifest.flag);
  const flagged = flaggedModules(registry).filter((module) => isAvailableAt(module.manifest.tag, choices.templateVersion));
  const parts = ['npx create-gatekit', projectName, '--yes'];
  parts.push('--auth', direct.length > 0 ? direct.join(',') : '""');
  parts.push('--oauth', oauth.length > 0 ? oauth.join(',') : 'none');
  if (hosted.length > 0) parts.push('--hosted', hosted.join(','));
  if (features.length > 0) parts.push('--modules', features.map((module) => module.manifest.id).join(','));
  for (const module of flagged) parts.push(`--${chosen(module) ? '' : 'no-'}${module.manifest.id}`);
  parts.push('--db', choices.db, '--template-version', choices.templateVersion, '--pm', choices.pm);
  for (const pack of packsUsedBy(modules, registry)) parts.push('--pack', pack.path ?? pack.spec);
  return parts.join(' ');
}
