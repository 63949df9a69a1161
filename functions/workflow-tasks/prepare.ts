import type { PlanChangeExecution } from '#core/plan-change.ts';
import { clock } from '#ports/clock.ts';
import { dispatcherStep } from '../plan-changes/dispatcher-step.ts';

/** Step Functions task `Prepare` of the Plan Change workflow (statemachines/plan-change.asl.json). */
export const handler = (input: PlanChangeExecution): Promise<PlanChangeExecution> =>
  dispatcherStep(input, 'backup', clock().now());
