import type { PlanChangeExecution } from '#core/plan-change.ts';
import { clock } from '#ports/clock.ts';
import { drainWork } from '../plan-changes/drain-work.ts';

/** Step Functions task `DrainWork` of the Plan Change workflow (statemachines/plan-change.asl.json). */
export const handler = (input: PlanChangeExecution): Promise<PlanChangeExecution> =>
  drainWork(input, clock().now());
