import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Handlebars from 'handlebars';
import { PRECOMPILED_FILE, TEMPLATE_OPTIONS, templateKey } from './precompiled-templates.js';

/** One Handlebars instance for every template, with the few helpers templates may use. */
export const handlebars = Handlebars.create();

handlebars.registerHelper('eq', (a: unknown, b: unknown) => a === b);
handlebars.registerHelper('includes', (list: unknown, value: unknown) => Array.isArray(list) && list.includes(value));
handlebars.registerHelper('and', (...args: unknown[]) => args.slice(0, -1).every(Boolean));
handlebars.registerHelper('or', (...args: unknown[]) => args.slice(0, -1).some(Boolean));
/**
 * Manifest imports ("./modules/auth/x.js") are relative to src/. A template in a subfolder of src/
 * writes {{importFrom "modules/auth" import}} to get the path relative to its own folder ("./x.js").
 */
export function importFrom(folder: string, specifier: string): string {
  const relative = path.posix.relative(folder, path.posix.normalize(specifier));
  return relative.startsWith('.') ? relative : `./${relative}`;
}

handlebars.registerHelper('importFrom', (folder: string, specifier: string) => importFrom(folder, specifier));
handlebars.registerHelper('json', (value: unknown) => JSON.stringify(value, null, 2));

/** Renders a value as a TypeScript literal in the generated code's style (single quotes, 2 spaces). */
export function tsLiteral(value: unknown, indent = ''): string {
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    if (value.every((item) => typeof item === 'string')) return `[${value.map((item) => tsLiteral(item)).join(', ')}]`;
    return `[\n${value.map((item) => `${inner}${tsLiteral(item, inner)},`).join('\n')}\n${indent}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return '{}';
  return `{ ${entries.map(([key, item]) => `${key}: ${tsLiteral(item, inner)}`).join(', ')} }`;
}

handlebars.registerHelper('tsLiteral', (value: unknown) => tsLiteral(value));

const cache = new Map<string, HandlebarsTemplateDelegate>();
let precompiled: Record<string, string> | undefined;

/** The built CLI's precompiled built-in templates (none when running from source). */
function precompiledSpecs(): Record<string, string> {
  if (!precompiled) {
    const file = fileURLToPath(new URL(`./${PRECOMPILED_FILE}`, import.meta.url));
    precompiled = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>) : {};
  }
  return precompiled;
}

/** Replaces the precompiled templates (tests compare both ways of rendering). */
export function usePrecompiledTemplates(specs: Record<string, string>): void {
  precompiled = specs;
  cache.clear();
}

function templateOf(source: string): HandlebarsTemplateDelegate {
  const spec = precompiledSpecs()[templateKey(source)];
  // A precompiled spec is the source of a JavaScript object, as Handlebars.precompile writes it.
  if (spec) return handlebars.template(new Function(`return ${spec}`)() as TemplateSpecification);
  return handlebars.compile(source, TEMPLATE_OPTIONS);
}

/**
 * Renders a template text; generated code is not HTML, so nothing is escaped. A text without
 * `{{` renders as itself, so it is not compiled (most schema fragments and README sections).
 * Built-in templates come precompiled with the built CLI; a pack's are compiled here.
 */
export function renderTemplate(source: string, context: object, cacheKey?: string): string {
  if (!source.includes('{{')) return source;
  let template = cacheKey ? cache.get(cacheKey) : undefined;
  if (!template) {
    template = templateOf(source);
    if (cacheKey) cache.set(cacheKey, template);
  }
  return template(context);
}
