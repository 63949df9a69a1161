import type { PlanChangeExecution } from '#core/plan-change.ts';

/** Calls of this module's handler, for the test that checks the runner imports task modules. */
export const calls: PlanChangeExecution[] = [];

/** A task module as the local Step Functions imports it: `handler(input)` answers the next state. */
export const handler = async (input: PlanChangeExecution): Promise<PlanChangeExecution> => {
  calls.push(input);
  return { ...input, step: 'done', waitSeconds: 0 };
};
