import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The billing state of a tenant is written by the sweep and by nothing else: no module but the
 * reconciler's commit sets it after sign-up (here), and no entry point but the sweep's handler can
 * reach that module (the dependency-cruiser rule `only-the-sweep-writes-billing-state`, run by
 * `npm run lint` and planted in test/unit/layers.test.ts).
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
});
