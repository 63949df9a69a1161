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

/**
 * The desired state the Dispatcher reads for a tenant's running Stack on `plan`, with each Plan's
 * figures written out here (not read from PLANS, so that a changed Plan fails the tests that read
 * it): the reconciler's rendering and the Dispatcher contract's answer both hold to it.
 */
export const runningDesiredState = (slug: string, plan: 'standard' | 'pro') => ({
  stack: `${slug}.stacks.test`,
  plan,
  ...PLAN_FIGURES[plan],
  admission: 'open',
  lifecycle: 'running',
});

const PLAN_FIGURES = {
  standard: { resources: { vcpu: 2, vcpuKind: 'shared', memoryGb: 4, storageGb: 40 }, run_cap: 1 },
  pro: { resources: { vcpu: 8, vcpuKind: 'shared', memoryGb: 16, storageGb: 160 }, run_cap: 5 },
};
