import {
  DISPATCHER_STEP_LIMIT_HOURS,
  type PlanChangeExecution,
  type PlanChangeStatus,
} from '#core/plan-change.ts';
import { nextDispatcherLook } from '#core/plan-change-pacing.ts';
import type { OperationStep } from '#core/stacks.ts';
import { type PlanChangeReason, stepFailureReason } from '#core/tenant-reasons.ts';
import { logger } from '#ports/logger.ts';
import { recordDispatcherFailure } from '#ports/metrics.ts';
import { type PlanChange, planChangeUpdate } from '#store/plan-changes.ts';
import { planChangeStackWrite, type StoredStack } from '#store/stacks.ts';
import { applyStackWrites } from '#store/transact.ts';
import { executionOf, readRun, statusAfter } from './record.ts';
import { toRollBack } from './roll-back.ts';

type DispatcherStep = Extract<OperationStep, 'backup' | 'switch' | 'verify'>;

/** Each Dispatcher step: the status it runs in, the event a done step is, and the step after it. */
const STEPS: Record<
  DispatcherStep,
  {
    status: PlanChangeStatus;
    /** Verifying: healthy does not move the status; billing commits first. */
    done?: 'backup_done' | 'switched';
    next: { step: PlanChangeExecution['step']; operation?: DispatcherStep };
  }
> = {
  backup: { status: 'preparing', done: 'backup_done', next: { step: 'switch', operation: 'switch' } },
  switch: { status: 'switching', done: 'switched', next: { step: 'verify', operation: 'verify' } },
  verify: { status: 'verifying', next: { step: 'commit_billing' } },
};

/**
 * THE Dispatcher step tasks (Preparing: the final backup; Switching: the replacement is created at
 * the held place and the Durable Stack State and Credentials move; Verifying: the replacement
 * reports healthy). Each looks at what the Stack's Dispatcher reported for this change and step:
 * done moves the change on (and the desired state to the next step), failed rolls it back, nothing
 * for two hours rolls it back too. The tenant is told our reason for the step; the Dispatcher's own
 * words go to operators only (kept on the record, logged, counted).
 */
export const dispatcherStep = async (
  input: PlanChangeExecution,
  step: DispatcherStep,
  now: Date,
): Promise<PlanChangeExecution> => {
  const run = await readRun(input);
  if (!run) return { ...input, step: 'done', waitSeconds: 0 };
  const { change, stack } = run;
  const rule = STEPS[step];
  if (change.status !== rule.status || change.step !== input.step) return executionOf(change);
  const report = stack.observed?.operation;
  const reported = report?.id === change.changeId && report.step === step ? report : undefined;
  const healthy = step !== 'verify' || stack.observed?.health === 'healthy';
  if (reported?.outcome === 'done' && healthy) {
    const moved = await applyStackWrites(doneWrites(change, stack, step, now));
    return moved ? { ...input, step: rule.next.step, waitSeconds: 0 } : { ...input, waitSeconds: 1 };
  }
  const failure: { code: PlanChangeReason; dispatcherReason?: string | undefined } | undefined =
    reported?.outcome === 'failed'
      ? { code: stepFailureReason(step, 'failed'), dispatcherReason: reported.reason }
      : now.getTime() - Date.parse(change.stepStartedAt) >= DISPATCHER_STEP_LIMIT_HOURS * 3_600_000
        ? { code: stepFailureReason(step, 'no_report') }
        : undefined;
  if (failure) {
    const moved = await applyStackWrites([toRollBack(change, failure, now)]);
    if (moved && reported?.outcome === 'failed') {
      logger.warn('a Dispatcher reported a Plan Change step failed; the change rolls back', {
        tenantId: change.tenantId,
        changeId: change.changeId,
        stackId: change.stackId,
        step,
        reasonCode: failure.code,
        dispatcherReason: failure.dispatcherReason ?? null,
      });
      recordDispatcherFailure('plan_change_step');
    }
    return moved ? { ...input, step: 'roll_back', waitSeconds: 0 } : { ...input, waitSeconds: 1 };
  }
  return { ...input, waitSeconds: nextDispatcherLook(input.waitSeconds) };
};

const doneWrites = (change: PlanChange, stack: StoredStack, step: DispatcherStep, now: Date) => {
  const rule = STEPS[step];
  const status = rule.done ? statusAfter(change, { type: rule.done }) : change.status;
  const report = stack.observed?.operation;
  const extra =
    step === 'switch'
      ? { addressChanged: report?.addressChanged ?? change.targetLocation !== change.fromLocation }
      : step === 'verify'
        ? { healthyAt: stack.observed?.reportedAt ?? now.toISOString() }
        : {};
  const writes = [
    planChangeUpdate(
      change,
      {
        status,
        step: rule.next.step,
        stepStartedAt: now.toISOString(),
        ...(rule.next.operation ? { stepVersion: stack.desiredVersion + 1 } : {}),
        ...extra,
      },
      now,
    ),
  ];
  if (rule.next.operation && stack.operation?.id === change.changeId)
    writes.push(
      planChangeStackWrite(
        change.tenantId,
        stack,
        { ...stack, operation: { ...stack.operation, step: rule.next.operation } },
        { id: change.changeId, status },
      ),
    );
  return writes;
};
