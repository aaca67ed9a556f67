import { runCommand, type PackageManager } from './choices.js';
import type { ComposedEnv } from './compose-env.js';
import type { Endpoint } from './compose-openapi.js';
import type { LoadedModule } from './manifest.js';
import type { RenderContext } from './render-context.js';
import { renderModuleFile } from './render-module.js';

export interface ReadmeInput {
  env: ComposedEnv['variables'];
  endpoints: Endpoint[];
  /** The command that generates the same app again. */
  command: string;
  pm: PackageManager;
}

/** The app's README: the base module's, with every other module's section in module order. */
export function composeReadme(modules: LoadedModule[], context: RenderContext, input: ReadmeInput): string {
  // Sections may name the package manager's run command too ({{pmRun}} audit:verify).
  const sectionContext = { ...context, pm: input.pm, pmRun: runCommand(input.pm) };
  const sections = modules
    .filter((module) => module.manifest.readme && module.manifest.id !== 'base')
    .map((module) => renderModuleFile(module, module.manifest.readme!, sectionContext).trim());
  const base = modules.find((module) => module.manifest.id === 'base')!;
  const readme = renderModuleFile(base, base.manifest.readme!, {
    ...context,
    env: input.env,
    endpoints: input.endpoints,
    sections,
    command: input.command,
    pm: input.pm,
    pmRun: runCommand(input.pm),
  });
  return `${readme.trim()}\n`;
}
