import type { PlanChangeStatus, PlanChangeStep } from '#core/plan-change.ts';
import type { StackOperation } from '#core/stacks.ts';
import { type PlanChange, planChangeUpdate } from '#store/plan-changes.ts';
import { planChangeStackWrite, type StoredStack } from '#store/stacks.ts';

/**
 * The two writes that start a Plan Change's next Dispatcher step: the change (its new status and
 * step, when the step started, and the desired-state version the Dispatcher must apply for it)
 * and its Stack (the operation the desired state now carries, with the open change's status).
 */
export const nextStepWrites = (
  change: PlanChange,
  stack: StoredStack,
  next: {
    status: PlanChangeStatus;
    step: PlanChangeStep;
    operation: StackOperation;
    targetLocation?: string;
  },
  now: Date,
) => [
  planChangeUpdate(
    change,
    {
      status: next.status,
      step: next.step,
      ...(next.targetLocation === undefined ? {} : { targetLocation: next.targetLocation }),
      stepStartedAt: now.toISOString(),
      stepVersion: stack.desiredVersion + 1,
    },
    now,
  ),
  planChangeStackWrite(
    change.tenantId,
    stack,
    { ...stack, operation: next.operation },
    { id: change.changeId, status: next.status },
  ),
];
