import { stackOnPlan } from '#core/stacks.ts';

/** A running Standard Stack of tenant `acme`, as a unit test's starting record. */
export const standardStack = () =>
  stackOnPlan({
    stackId: 'stk_1',
    name: 's1.acme.stacks.test',
    plan: 'standard',
    location: 'eu-1a',
    createdAt: '2026-11-01T00:00:00.000Z',
  });
