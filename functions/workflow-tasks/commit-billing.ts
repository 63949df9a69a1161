import type { PlanChangeExecution } from '#core/plan-change.ts';
import { clock } from '#ports/clock.ts';
import { commitBilling } from '../plan-changes/commit-billing.ts';

/** Step Functions task `CommitBilling` of the Plan Change workflow (statemachines/plan-change.asl.json). */
export const handler = (input: PlanChangeExecution): Promise<PlanChangeExecution> =>
  commitBilling(input, clock().now());
