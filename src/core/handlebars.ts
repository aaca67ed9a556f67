import Handlebars from 'handlebars';

/** One Handlebars instance for every template, with the few helpers templates may use. */
export const handlebars = Handlebars.create();

handlebars.registerHelper('eq', (a: unknown, b: unknown) => a === b);
handlebars.registerHelper('includes', (list: unknown, value: unknown) => Array.isArray(list) && list.includes(value));
handlebars.registerHelper('and', (...args: unknown[]) => args.slice(0, -1).every(Boolean));
handlebars.registerHelper('or', (...args: unknown[]) => args.slice(0, -1).some(Boolean));
handlebars.registerHelper('json', (value: unknown) => JSON.stringify(value, null, 2));

const cache = new Map<string, HandlebarsTemplateDelegate>();

/** Renders a template text; generated code is not HTML, so nothing is escaped. */
export function renderTemplate(source: string, context: object, cacheKey?: string): string {
  let template = cacheKey ? cache.get(cacheKey) : undefined;
  if (!template) {
    template = handlebars.compile(source, { noEscape: true, strict: true });
    if (cacheKey) cache.set(cacheKey, template);
  }
  return template(context);
}
