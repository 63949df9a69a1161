import { DRAIN_LIMIT_HOURS, type PlanChangeExecution } from '#core/plan-change.ts';
import { nextDispatcherLook } from '#core/plan-change-pacing.ts';
import { applyStackWrites } from '#store/transact.ts';
import { executionOf, noLongerWanted, readRun, statusAfter } from './record.ts';
import { rollBackWrites, toRollBack } from './roll-back.ts';
import { nextStepWrites } from './step-writes.ts';

/**
 * THE Waiting-for-Work task: admission is paused in the desired state (since the place was held);
 * active work is never stopped. The change moves to Preparing (the final backup, which closes the
 * cancel window) once the Dispatcher reports the paused version applied and no active run. Work
 * that does not drain within 24 hours rolls the change back (admission reopens on the previous
 * Plan, billing untouched); the tenant may ask again when the Stack is quieter.
 */
export const drainWork = async (input: PlanChangeExecution, now: Date): Promise<PlanChangeExecution> => {
  const run = await readRun(input);
  if (!run) return { ...input, step: 'done', waitSeconds: 0 };
  const { change, stack, tenant } = run;
  if (change.status !== 'waiting_for_work' || change.step !== 'drain_work') return executionOf(change);
  const gone = noLongerWanted(tenant, stack);
  if (gone) {
    const ended = await applyStackWrites(
      await rollBackWrites(change, stack, gone, now, { type: 'tenant_left_active' }),
    );
    return ended ? { ...input, step: 'done', waitSeconds: 0 } : { ...input, waitSeconds: 1 };
  }
  const observed = stack.observed;
  const drained =
    observed !== undefined &&
    observed.appliedVersion >= (change.stepVersion ?? stack.desiredVersion) &&
    observed.activeRuns === 0;
  if (drained && stack.operation?.id === change.changeId) {
    const moved = await applyStackWrites(
      nextStepWrites(
        change,
        stack,
        {
          status: statusAfter(change, { type: 'work_drained' }),
          step: 'prepare',
          operation: { ...stack.operation, step: 'backup' },
        },
        now,
      ),
    );
    return moved ? { ...input, step: 'prepare', waitSeconds: 0 } : { ...input, waitSeconds: 1 };
  }
  if (now.getTime() - Date.parse(change.stepStartedAt) >= DRAIN_LIMIT_HOURS * 3_600_000) {
    const moved = await applyStackWrites([toRollBack(change, { code: 'drain_timed_out' }, now)]);
    return moved ? { ...input, step: 'roll_back', waitSeconds: 0 } : { ...input, waitSeconds: 1 };
  }
  return { ...input, waitSeconds: nextDispatcherLook(input.waitSeconds) };
};
