import type { PlanChangeExecution } from '#core/plan-change.ts';
import { clock } from '#ports/clock.ts';
import { crashPoint } from '#ports/crash-point.ts';
import { rollBack } from '../plan-changes/roll-back.ts';

/** Step Functions task `RollBack` of the Plan Change workflow (statemachines/plan-change.asl.json). */
export const handler = async (input: PlanChangeExecution): Promise<PlanChangeExecution> => {
  const output = await rollBack(input, clock().now());
  // Killed here, the task did its work and the workflow never heard: its retry runs it again.
  crashPoint('plan-change.task', 'roll-back');
  return output;
};
