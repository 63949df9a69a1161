import type { PlanChangeExecution } from '#core/plan-change.ts';
import { clock } from '#ports/clock.ts';
import { findCapacity } from '../plan-changes/find-capacity.ts';

/** Step Functions task `FindCapacity` of the Plan Change workflow (statemachines/plan-change.asl.json). */
export const handler = (input: PlanChangeExecution): Promise<PlanChangeExecution> =>
  findCapacity(input, clock().now());
