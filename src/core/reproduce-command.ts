import type { Choices } from './choices.js';
import type { LoadedModule } from './manifest.js';

/** The command line that generates the same project again (recorded in gatekit.json). */
export function reproduceCommand(projectName: string, choices: Choices, modules: LoadedModule[]): string {
  const idsOf = (category: string) =>
    modules.filter((module) => module.manifest.category === category).map((module) => module.manifest.id);
  const direct = idsOf('direct');
  const oauth = idsOf('oauth');
  const hosted = idsOf('hosted');
  const parts = ['npx create-gatekit', projectName, '--yes'];
  parts.push('--auth', direct.length > 0 ? direct.join(',') : '""');
  parts.push('--oauth', oauth.length > 0 ? oauth.join(',') : 'none');
  if (hosted.length > 0) parts.push('--hosted', hosted.join(','));
  parts.push(modules.some((module) => module.manifest.id === 'orgs') ? '--orgs' : '--no-orgs');
  parts.push('--db', choices.db, '--template-version', choices.templateVersion, '--pm', choices.pm);
  return parts.join(' ');
}
