import type { PlanChangeExecution } from '#core/plan-change.ts';
import { clock } from '#ports/clock.ts';
import { rollBack } from '../plan-changes/roll-back.ts';

/** Step Functions task `RollBack` of the Plan Change workflow (statemachines/plan-change.asl.json). */
export const handler = (input: PlanChangeExecution): Promise<PlanChangeExecution> =>
  rollBack(input, clock().now());
