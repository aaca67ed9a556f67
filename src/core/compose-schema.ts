import type { LoadedModule } from './manifest.js';
import type { RenderContext } from './render-context.js';
import { renderModuleFile } from './render-module.js';

/**
 * The Prisma schema: the base fragment (generator, datasource, User with every module's
 * back-relations) followed by each module's own models.
 */
export function composeSchema(modules: LoadedModule[], context: RenderContext): string {
  const fragments = modules
    .filter((module) => module.manifest.schema)
    .map((module) => renderModuleFile(module, module.manifest.schema!, context).trim());
  return `${fragments.join('\n\n')}\n`;
}
