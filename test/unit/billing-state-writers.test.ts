import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { EXTERNAL_MODULES, MAIN_FIELDS, NODE_TARGET } from '../../lib/infra/bundling.ts';
import { AUTHORIZER_HANDLER, routes } from '../../lib/routes.ts';

/**
 * The billing state of a tenant is written by the sweep and by nothing else: no module but the
 * reconciler's commit sets it after sign-up, and no API or webhook handler can reach that module.
 */
const REPO = path.resolve(import.meta.dirname, '../..');
const THE_WRITER = 'functions/store/lifecycle.ts';

const sources = (directory: string): string[] =>
  readdirSync(path.join(REPO, directory), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sources(path.join(directory, entry.name))
      : entry.name.endsWith('.ts')
        ? [path.join(directory, entry.name)]
        : [],
  );

describe('who writes the billing state', () => {
  it('only the reconciler commit updates billingState (sign-up creates it as provisioning)', () => {
    const writers = sources('functions').filter((file) =>
      // An update that sets it (a condition that only reads it, e.g. "still provisioning", is no write).
      /UpdateExpression:[^\n]*\bbillingState\s*=\s*:/.test(readFileSync(path.join(REPO, file), 'utf8')),
    );
    expect(writers).toEqual([THE_WRITER]);
    const creators = sources('functions').filter((file) =>
      /billingState:\s*'provisioning'/.test(readFileSync(path.join(REPO, file), 'utf8')),
    );
    expect(creators).toEqual(['functions/store/tenants.ts']);
  });

  it.each([
    ...routes.map((route) => [`${route.method} ${route.path}`, route.handler]),
    ['session authorizer', AUTHORIZER_HANDLER],
  ])('%s cannot reach the billing-state writer or the reconciler', async (_name, entry) => {
    const result = await build({
      entryPoints: [path.join(REPO, entry)],
      bundle: true,
      write: false,
      metafile: true,
      format: 'esm',
      platform: 'node',
      target: NODE_TARGET,
      mainFields: MAIN_FIELDS,
      external: EXTERNAL_MODULES,
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(
      inputs.filter((input) => input === THE_WRITER || input.startsWith('functions/reconciler/')),
    ).toEqual([]);
  });
});
