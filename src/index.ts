export { generateProject } from './core/generate-project.js';
export { resolveSelection } from './core/resolve-selection.js';
export { createRegistry, loadBuiltinModules, loadPackModules } from './core/registry.js';
export { mergeChoices, defaultChoices } from './core/choices.js';
export { writeTree } from './core/write-tree.js';
export { main } from './cli/main.js';
