/**
 * The four areas `npm run test:mutation` mutates, each with the test files that cover it (read by
 * stryker.config.mjs and test/mutation/vitest.config.ts). A mutant is judged by the tests written
 * for its code, and an area's run stays within minutes on a shared machine.
 */
export const AREA_NAMES = ['core', 'billing', 'plan-changes', 'credentials'] as const;
export type AreaName = (typeof AREA_NAMES)[number];

export interface Area {
  /** The modules mutated (globs from the repository root). */
  mutate: string[];
  /** Unit test files (no local cloud). */
  unit: string[];
  /** Integration test files (DynamoDB Local and the stand-ins, started once per run). */
  integration: string[];
  /** Test files the globs above match that do not belong to the area. */
  exclude?: string[];
}

export const AREAS: Record<AreaName, Area> = {
  // Pure rules: the unit tests named after each rule (a new one is included by itself). Left out:
  // the unit tests of other layers (they reach no core module), and those that read the sources
  // (Stryker's sandbox holds them instrumented).
  core: {
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
      'test/unit/no-import-cycles.test.ts',
      'test/unit/openapi.test.ts',
      'test/unit/outbox-lease.test.ts',
      'test/unit/processor-emulator.test.ts',
      'test/unit/processor-events.test.ts',
      'test/unit/rate-limit.test.ts',
    ],
    integration: [],
  },
  billing: {
    mutate: ['functions/billing/**/*.ts'],
    unit: [],
    integration: [
      'test/integration/add-stack.test.ts',
      'test/integration/checkout.test.ts',
      'test/integration/money-back.test.ts',
      'test/integration/money-safety.test.ts',
      'test/integration/portal-waitlist.test.ts',
      'test/integration/quantity-check.test.ts',
      'test/integration/quantity-serialization.test.ts',
      'test/integration/reconciler.test.ts',
    ],
  },
  'plan-changes': {
    mutate: ['functions/plan-changes/**/*.ts'],
    unit: [],
    integration: [
      'test/integration/plan-changes.test.ts',
      'test/integration/plan-change-estimate.test.ts',
      'test/integration/plan-change-leaving.test.ts',
      'test/integration/plan-change-preview.test.ts',
      'test/integration/plan-change-renewal.test.ts',
      'test/integration/local-stepfunctions.test.ts',
    ],
  },
  credentials: {
    mutate: ['functions/credentials/**/*.ts'],
    unit: [],
    integration: [
      'test/integration/credentials.test.ts',
      'test/integration/credential-catalog.test.ts',
      'test/integration/credential-threads.test.ts',
    ],
  },
};

export const isAreaName = (name: string | undefined): name is AreaName =>
  (AREA_NAMES as readonly (string | undefined)[]).includes(name);

/** The area a mutation run is for (MUTATION_AREA; core when unset). */
export const currentArea = (): { name: AreaName; area: Area } => {
  const name = process.env.MUTATION_AREA ?? 'core';
  if (!isAreaName(name))
    throw new Error(`MUTATION_AREA must be one of ${AREA_NAMES.join(', ')}, not ${name}`);
  return { name, area: AREAS[name] };
};
