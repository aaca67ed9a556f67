import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { handlebars, renderTemplate, usePrecompiledTemplates } from '../../src/core/handlebars.js';
import { precompileTemplates, templateKey } from '../../src/core/precompiled-templates.js';
import { renderFixture } from '../helpers/fixtures.js';
import { ROOT } from '../helpers/run-cli.js';

// .env holds freshly generated secrets; every other file is deterministic.
const renderFull = () => Object.fromEntries(renderFixture('full').tree.entries().filter(([file]) => file !== '.env'));

describe('precompiled templates', () => {
  afterEach(() => {
    usePrecompiledTemplates({});
    vi.restoreAllMocks();
  });

  it('render the full fixture byte for byte as compiling them does, without compiling any', () => {
    usePrecompiledTemplates({});
    const compiled = renderFull();

    usePrecompiledTemplates(precompileTemplates(path.join(ROOT, 'templates')));
    const compile = vi.spyOn(handlebars, 'compile');
    const precompiled = renderFull();

    expect(compile).not.toHaveBeenCalled();
    expect(Object.keys(precompiled).sort()).toEqual(Object.keys(compiled).sort());
    for (const [file, text] of Object.entries(compiled)) expect(precompiled[file], file).toBe(text);
  });

  it('are found by content, so a changed template is compiled afresh', () => {
    const source = 'Hello {{name}}';
    usePrecompiledTemplates({ [templateKey(source)]: String(handlebars.precompile(source)) });
    expect(renderTemplate(source, { name: 'Ada' })).toBe('Hello Ada');
    const compile = vi.spyOn(handlebars, 'compile');
    expect(renderTemplate('Bye {{name}}', { name: 'Ada' })).toBe('Bye Ada');
    expect(compile).toHaveBeenCalledTimes(1);
  });
});
