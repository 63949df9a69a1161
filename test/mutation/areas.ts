/**
 * The four areas `npm run test:mutation` mutates, each in groups: a group's modules are mutated
 * and judged by the test files written for them (read by stryker.config.mjs and
 * test/mutation/vitest.config.ts). An area's score counts every mutant of its groups.
 *
 * Why groups: the use cases of billing, plan-changes and credentials are tested through the
 * routes against DynamoDB Local, and every scenario passes through the checkout, the sweep and so
 * on. Judged by every integration test that happens to run its code, a mutant of the checkout
 * would run most of the integration layer; paired with the tests about it, a few scenarios.
 */
export const AREA_NAMES = ['core', 'billing', 'plan-changes', 'credentials'] as const;
export type AreaName = (typeof AREA_NAMES)[number];

export interface Group {
  /** Unique within its area; names the group's reports (`.reports/mutation/<area>.<group>.json`). */
  name: string;
  /** The modules mutated (globs from the repository root). */
  mutate: string[];
  /** Unit test files (no local cloud). */
  unit: string[];
  /** Integration test files (DynamoDB Local and the stand-ins, started once per run). */
  integration: string[];
  /** Test files the globs above match that do not belong to the group. */
  exclude?: string[];
}

export const AREAS: Record<AreaName, Group[]> = {
  core: [
    // Pure rules: the unit tests named after each rule (a new one is included by itself). Left
    // out: the unit tests of other layers (they reach no core module), and those that read the
    // sources (Stryker's sandbox holds them instrumented).
    {
      name: 'rules',
      mutate: ['functions/core/**/*.ts'],
      unit: ['test/unit/**/*.test.ts'],
      exclude: [
        'test/unit/billing-engine.test.ts',
        'test/unit/billing-state-writers.test.ts',
        'test/unit/configuration.test.ts',
        'test/unit/http-conventions.test.ts',
        'test/unit/local-clock.test.ts',
        'test/unit/local-sweep-line.test.ts',
        'test/unit/metrics.test.ts',
        'test/unit/layers.test.ts',
        'test/unit/openapi.test.ts',
        'test/unit/outbox-lease.test.ts',
        'test/unit/processor-emulator.test.ts',
        'test/unit/processor-events.test.ts',
        'test/unit/rate-limit.test.ts',
      ],
      integration: [],
    },
  ],
  billing: [
    {
      name: 'checkout',
      mutate: [
        'functions/billing/checkout.ts',
        'functions/billing/sessions.ts',
        'functions/billing/close-account.ts',
      ],
      unit: [],
      integration: [
        'test/integration/checkout.test.ts',
        'test/integration/checkout-refusals.test.ts',
        'test/integration/checkout-races.test.ts',
        // The table fault after the claim (the claim given back) needs this file's table proxy.
        'test/integration/chaos-give-ups.test.ts',
      ],
    },
    {
      name: 'money-back',
      mutate: [
        'functions/billing/money-back.ts',
        'functions/billing/refund.ts',
        'functions/billing/status.ts',
      ],
      unit: [],
      integration: [
        'test/integration/money-back.test.ts',
        'test/integration/money-back-edges.test.ts',
        'test/integration/billing-status.test.ts',
      ],
    },
    {
      name: 'items',
      mutate: ['functions/billing/item-changes.ts', 'functions/billing/price-rollout.ts'],
      unit: ['test/unit/item-journal.test.ts'],
      integration: [
        // The lease called directly: the price a commit starts from, what a holder prunes, a send's
        // own refusals, what a look moves; a defect of ours never taken for a processor failure.
        'test/integration/item-lease-direct.test.ts',
        'test/integration/item-lease-defects.test.ts',
        'test/integration/quantity-serialization.test.ts',
        'test/integration/add-stack.test.ts',
        // The rollout's look (a move decided and sent but never recorded) is tested here.
        'test/integration/price-lock.test.ts',
        // The billing commit sends through the lease: its journal entry, answer and stored result.
        'test/integration/plan-change-commit.test.ts',
      ],
    },
    {
      name: 'quantity-check',
      mutate: ['functions/billing/quantity-check.ts'],
      unit: [],
      integration: [
        'test/integration/quantity-check.test.ts',
        'test/integration/quantity-check-journal.test.ts',
      ],
    },
    {
      name: 'account',
      mutate: [
        'functions/billing/portal.ts',
        'functions/billing/waitlist.ts',
        'functions/ports/processor/errors.ts',
      ],
      unit: ['test/unit/processor-errors.test.ts'],
      integration: ['test/integration/portal-waitlist.test.ts'],
    },
  ],
  'plan-changes': [
    {
      name: 'preview',
      mutate: ['functions/plan-changes/preview.ts'],
      unit: [],
      integration: [
        'test/integration/plan-change-preview.test.ts',
        'test/integration/plan-change-estimate.test.ts',
      ],
    },
    {
      name: 'requests',
      mutate: [
        'functions/plan-changes/confirm.ts',
        'functions/plan-changes/cancel.ts',
        'functions/plan-changes/gates.ts',
        'functions/plan-changes/read.ts',
        'functions/plan-changes/record.ts',
      ],
      // The tenant's view of a change and the record's transitions are pure: unit tests judge them.
      unit: ['test/unit/plan-change-view.test.ts'],
      integration: ['test/integration/plan-changes.test.ts', 'test/integration/plan-change-requests.test.ts'],
    },
    {
      name: 'workflow',
      mutate: [
        'functions/plan-changes/commit-billing.ts',
        'functions/plan-changes/complete.ts',
        'functions/plan-changes/dispatcher-step.ts',
        'functions/plan-changes/drain-work.ts',
        'functions/plan-changes/find-capacity.ts',
        'functions/plan-changes/roll-back.ts',
        'functions/plan-changes/resume.ts',
      ],
      unit: [],
      // The direct tests first (test/mutation/vitest.config.ts runs a group's files in this order):
      // most mutants they kill are then judged without a scenario.
      integration: [
        // Each task called directly, one branch per test: what the scenarios below never reach.
        'test/integration/plan-change-tasks.test.ts',
        // The billing commit called directly: each branch, its waits, keys and stored adjustment.
        'test/integration/plan-change-commit.test.ts',
        'test/integration/plan-changes.test.ts',
        'test/integration/plan-change-leaving.test.ts',
        'test/integration/plan-change-renewal.test.ts',
      ],
    },
  ],
  credentials: [
    {
      name: 'credentials',
      mutate: ['functions/credentials/**/*.ts'],
      unit: [],
      integration: [
        'test/integration/credentials.test.ts',
        'test/integration/credential-catalog.test.ts',
        'test/integration/credential-threads.test.ts',
      ],
    },
  ],
};

export const isAreaName = (name: string | undefined): name is AreaName =>
  (AREA_NAMES as readonly (string | undefined)[]).includes(name);

/** The area and group a mutation run is for (MUTATION_AREA, MUTATION_GROUP; core's first by default). */
export const currentGroup = (): { area: AreaName; group: Group } => {
  const area = process.env.MUTATION_AREA ?? 'core';
  if (!isAreaName(area))
    throw new Error(`MUTATION_AREA must be one of ${AREA_NAMES.join(', ')}, not ${area}`);
  const groups = AREAS[area];
  const name = process.env.MUTATION_GROUP;
  const group = name === undefined ? groups[0] : groups.find((g) => g.name === name);
  if (!group)
    throw new Error(`MUTATION_GROUP must be one of ${groups.map((g) => g.name).join(', ')}, not ${name}`);
  return { area, group };
};
