import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cruise, type IConfiguration, type ICruiseResult } from 'dependency-cruiser';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The layer rules of .dependency-cruiser.cjs (run by `npm run lint` on the real tree) each find
 * the break they are written for, and nothing else: a small tree with the repository's layout
 * plants one break per rule next to imports that are allowed.
 */
const config = createRequire(import.meta.url)('../../.dependency-cruiser.cjs') as IConfiguration;

const FILES: Record<string, string> = {
  'package.json': JSON.stringify({
    type: 'module',
    imports: {
      '#core/*': './functions/core/*',
      '#store/*': './functions/store/*',
      '#ports/*': './functions/ports/*',
      '#http/*': './functions/http/*',
    },
  }),
  'node_modules/aws-cdk-lib/package.json': JSON.stringify({ name: 'aws-cdk-lib', main: 'index.js' }),
  'node_modules/aws-cdk-lib/index.js': 'export const App = 1;\n',
  'node_modules/@aws-sdk/lib-dynamodb/package.json': JSON.stringify({
    name: '@aws-sdk/lib-dynamodb',
    main: 'index.js',
  }),
  'node_modules/@aws-sdk/lib-dynamodb/index.js': 'export class PutCommand {}\n',
  'node_modules/stripe/package.json': JSON.stringify({ name: 'stripe', main: 'index.js' }),
  'node_modules/stripe/index.js': 'export default class Stripe {}\n',
  // Allowed: the processor port loads the Stripe SDK, and the emulator reads its types.
  'functions/ports/processor/client.ts':
    "import Stripe from 'stripe';\nimport { clock } from '../clock.ts';\nexport const client = [Stripe, clock];\n",
  'lib/local/processor/shapes.ts': "import type Stripe from 'stripe';\nexport type Shape = Stripe;\n",
  // The emulator loading the Stripe SDK's code, not its types.
  'lib/local/processor/loads.ts': "import Stripe from 'stripe';\nexport const loaded = Stripe;\n",
  // A port outside the processor folder does not load the Stripe SDK.
  'functions/ports/mail.ts': "import Stripe from 'stripe';\nexport const mail = Stripe;\n",
  // Allowed: core imports core and node:crypto.
  'functions/core/rule.ts':
    "import { createHash } from 'node:crypto';\nimport { readFileSync } from 'node:fs';\nimport { other } from './other.ts';\nimport { thing } from '#store/thing.ts';\nexport const rule = [createHash, readFileSync, other, thing];\n",
  'functions/core/other.ts': 'export const other = 1;\n',
  // Allowed: store imports core, ports and the DynamoDB SDK.
  'functions/store/thing.ts':
    "import { PutCommand } from '@aws-sdk/lib-dynamodb';\nimport { other } from '#core/other.ts';\nimport { clock } from '#ports/clock.ts';\nimport { useCase } from '../billing/use-case.ts';\nexport const thing = [PutCommand, other, clock, useCase];\n",
  'functions/ports/clock.ts': 'export const clock = 1;\n',
  // The keys by name are for tests (allowed) and for nothing of functions/, the store included.
  'functions/store/keys.ts': "import { thing } from './thing.ts';\nexport const keys = { thing };\n",
  'functions/store/stacks.ts': "import { keys } from './keys.ts';\nexport const stacks = keys;\n",
  'test/unit/seed.ts': "import { keys } from '../../functions/store/keys.ts';\nexport const seed = keys;\n",
  // A port that imports the store (the layers' cycle).
  'functions/ports/queue.ts': "import { thing } from '#store/thing.ts';\nexport const queue = thing;\n",
  // The billing-state writer, the sweep's handler that reaches it (allowed), and a handler that reaches it.
  'functions/store/lifecycle.ts': 'export const commitBilling = 1;\n',
  'functions/reconciler/reconcile.ts':
    "import { commitBilling } from '#store/lifecycle.ts';\nexport const reconcile = commitBilling;\n",
  'functions/reconciler/sweep.ts':
    "import { reconcile } from './reconcile.ts';\nexport const handler = reconcile;\n",
  'functions/billing/pay-now.ts':
    "import { reconcile } from '../reconciler/reconcile.ts';\nexport const payNow = reconcile;\n",
  'functions/api/post-pay-now.ts':
    "import { payNow } from '../billing/pay-now.ts';\nexport const handler = payNow;\n",
  // The authorizer is an entry point: it reads through a use case, never the store itself.
  'functions/http/authorizer.ts': "import { thing } from '#store/thing.ts';\nexport const handler = thing;\n",
  // Allowed: a use case imports core, store, ports and another use case.
  'functions/billing/use-case.ts':
    "import { respond } from '#http/respond.ts';\nimport { handler } from '../api/get-thing.ts';\nimport { standIn } from '../../lib/local/stand-in.ts';\nimport { other } from '#core/other.ts';\nimport { clock } from '#ports/clock.ts';\nimport { more } from '../stacks/more.ts';\nexport const useCase = [respond, handler, standIn, other, clock, more];\n",
  'functions/stacks/more.ts':
    "import { PutCommand } from '@aws-sdk/lib-dynamodb';\nexport const more = PutCommand;\n",
  'functions/ports/logger.ts': 'export const logger = 1;\n',
  'functions/http/respond.ts': 'export const respond = 1;\n',
  // Allowed: a handler imports http and a use case.
  'functions/api/get-thing.ts':
    "import { respond } from '#http/respond.ts';\nimport { logger } from '#ports/logger.ts';\nimport { more } from '../stacks/more.ts';\nexport const handler = [respond, logger, more];\n",
  'lib/local/stand-in.ts':
    "import { App } from 'aws-cdk-lib';\nimport { app } from '../infra/app.ts';\nimport { routes } from '../routes.ts';\nexport const standIn = [App, app, routes];\n",
  // Allowed: the CDK app imports aws-cdk-lib, the shared route table and functions/.
  'lib/infra/app.ts':
    "import { App } from 'aws-cdk-lib';\nimport { routes } from '../routes.ts';\nimport { other } from '../../functions/core/other.ts';\nexport const app = [App, routes, other];\n",
  'lib/routes.ts': 'export const routes = [];\n',
  // Allowed: lib/ops imports a shared table of lib/; lib/local does not belong to it.
  'lib/ops/cli.ts':
    "import { routes } from '../routes.ts';\nimport { standIn } from '../local/stand-in.ts';\nexport const cli = [routes, standIn];\n",
  'lib/console/app.js':
    "import { routes } from '../routes.ts';\nimport { ui } from './ui.js';\nexport const app = [routes, ui];\n",
  'lib/console/ui.js': 'export const ui = 1;\n',
  // Allowed: the client imports its own files; the local cloud's are not its.
  'lib/client/index.ts':
    "import { facts } from './facts.ts';\nimport { standIn } from '../local/stand-in.ts';\nexport const client = [facts, standIn];\n",
  'lib/client/facts.ts': 'export const facts = 1;\n',
  // A cycle of types only is a cycle.
  'test/unit/a.ts': "import type { B } from './b.ts';\nexport type A = { b?: B };\n",
  'test/unit/b.ts': "import type { A } from './a.ts';\nexport type B = { a?: A };\n",
  'test/unit/c.ts': "import { gone } from './missing.ts';\nexport const c = gone;\n",
};

const root = mkdtempSync(path.join(tmpdir(), 'layers-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const cruiseFixture = async (): Promise<string[]> => {
  for (const [file, text] of Object.entries(FILES)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  const { output } = await cruise(
    ['functions', 'lib', 'test'],
    {
      ...config.options,
      tsConfig: undefined,
      baseDir: root,
      validate: true,
      ruleSet: { forbidden: config.forbidden ?? [] },
    },
    config.options?.enhancedResolveOptions ?? {},
  );
  return (output as ICruiseResult).summary.violations
    .map((violation) => `${violation.rule.name}: ${violation.from} -> ${violation.to}`)
    .sort();
};
let cruised: Promise<string[]> | undefined;
const violationsOf = (): Promise<string[]> => {
  cruised ??= cruiseFixture();
  return cruised;
};

describe('the layer rules (npm run lint) find each break, and only breaks', () => {
  it('one planted break per rule, none among the allowed imports', async () => {
    expect(await violationsOf()).toEqual(
      [
        'core-imports-nothing-of-ours: functions/core/rule.ts -> functions/store/thing.ts',
        'core-does-no-io: functions/core/rule.ts -> fs',
        'store-and-ports-not-use-cases: functions/store/thing.ts -> functions/billing/use-case.ts',
        'use-cases-not-http: functions/billing/use-case.ts -> functions/http/respond.ts',
        'nothing-imports-an-entry-point: functions/billing/use-case.ts -> functions/api/get-thing.ts',
        'functions-not-lib-or-test: functions/billing/use-case.ts -> lib/local/stand-in.ts',
        'only-the-cdk-app-loads-the-cdk: lib/local/stand-in.ts -> lib/infra/app.ts',
        'cdk-only-in-infra: lib/local/stand-in.ts -> node_modules/aws-cdk-lib/index.js',
        'console-is-self-contained: lib/console/app.js -> lib/routes.ts',
        'client-is-self-contained: lib/client/index.ts -> lib/local/stand-in.ts',
        'stripe-only-in-the-processor-port: functions/ports/mail.ts -> node_modules/stripe/index.js',
        'no-circular: test/unit/a.ts -> test/unit/b.ts',
        'no-unresolvable: test/unit/c.ts -> ./missing.ts',
        'entry-points-not-the-store: functions/http/authorizer.ts -> functions/store/thing.ts',
        'ports-not-the-store: functions/ports/queue.ts -> functions/store/thing.ts',
        'store-keys-for-tests-only: functions/store/stacks.ts -> functions/store/keys.ts',
        'only-the-sweep-writes-billing-state: functions/api/post-pay-now.ts -> functions/store/lifecycle.ts',
        'only-the-sweep-writes-billing-state: functions/api/post-pay-now.ts -> functions/reconciler/reconcile.ts',
        'ops-not-local: lib/ops/cli.ts -> lib/local/stand-in.ts',
        'dynamodb-sdk-only-in-the-store: functions/stacks/more.ts -> node_modules/@aws-sdk/lib-dynamodb/index.js',
        'emulator-reads-stripe-types-only: lib/local/processor/loads.ts -> node_modules/stripe/index.js',
      ].sort(),
    );
  });

  it('every rule of the configuration is planted above', async () => {
    const fired = new Set((await violationsOf()).map((line) => line.split(':')[0]));
    expect([...fired].sort()).toEqual((config.forbidden ?? []).map((rule) => rule.name).sort());
  });
});

describe('docs/architecture.md lists the layer rules', () => {
  it('its table of "The dependency rule" has one row per rule of the configuration, in the same words', () => {
    const page = readFileSync(path.join(import.meta.dirname, '../../docs/architecture.md'), 'utf8');
    const section = page.slice(page.indexOf('### The dependency rule'));
    const rows = [...section.matchAll(/^\| `([^`]+)` \| (.+) \|$/gm)].map(([, name, says]) => [name, says]);
    expect(rows).toEqual((config.forbidden ?? []).map((rule) => [rule.name, rule.comment]));
  });
});
