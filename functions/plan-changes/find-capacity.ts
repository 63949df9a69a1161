import { planChangeOutcomeEmail } from '#core/emails.ts';
import { applyPlanChangeEvent, type PlanChangeExecution } from '#core/plan-change.ts';
import { CAPACITY_LOOK_SECONDS } from '#core/plan-change-pacing.ts';
import { config } from '#ports/config.ts';
import { placeHold } from '#store/capacity.ts';
import { changeHolder } from '#store/plan-changes.ts';
import { applyStackWrites } from '#store/transact.ts';
import { endWrites, executionOf, noLongerWanted, readRun, requesterEmail, statusAfter } from './record.ts';
import { rollBackWrites } from './roll-back.ts';
import { nextStepWrites } from './step-writes.ts';

const HOLD_DAYS = 30;

/**
 * THE Waiting-for-Capacity task: one look for a place of the new Plan anywhere in the Home Region,
 * the Stack's own location first; a place found is held at once and the change moves to Waiting
 * for Work (admission paused in the same transaction). Seven days after confirmation (a deadline in
 * the record, compared with the Clock) the change expires, untouched billing and Plan; a tenant
 * that left `active` or a teardown that began cancels it.
 */
export const findCapacity = async (input: PlanChangeExecution, now: Date): Promise<PlanChangeExecution> => {
  const run = await readRun(input);
  if (!run) return { ...input, step: 'done', waitSeconds: 0 };
  const { change, stack, tenant } = run;
  if (change.status !== 'waiting_for_capacity') return executionOf(change);
  const gone = noLongerWanted(tenant, stack);
  if (gone) {
    const ended = await applyStackWrites(
      await rollBackWrites(change, stack, gone, now, { type: 'tenant_left_active' }),
    );
    return ended ? { ...input, step: 'done', waitSeconds: 0 } : { ...input, waitSeconds: 1 };
  }
  if (applyPlanChangeEvent(change, { type: 'clock', now }) === 'expired') {
    const to = await requesterEmail(change);
    const ended = await applyStackWrites(
      endWrites({
        change,
        stack,
        event: { type: 'clock', now },
        reason: 'no_capacity_expired',
        now,
        email: to
          ? {
              to,
              content: planChangeOutcomeEmail({
                outcome: 'expired',
                stackName: stack.name,
                fromPlan: change.fromPlan,
                toPlan: change.toPlan,
                appUrl: config.tenantAppUrl(),
              }),
            }
          : undefined,
      }),
    );
    return ended ? { ...input, step: 'done', waitSeconds: 0 } : { ...input, waitSeconds: 1 };
  }
  const hold = await placeHold({
    holder: changeHolder(change.changeId),
    region: change.region,
    plan: change.toPlan,
    now,
    expiresAt: new Date(now.getTime() + HOLD_DAYS * 86_400_000),
    prefer: stack.location,
  });
  if (!hold) return { ...executionOf(change), waitSeconds: CAPACITY_LOOK_SECONDS };
  const moved = await applyStackWrites([
    ...hold.writes,
    ...nextStepWrites(
      change,
      stack,
      {
        status: statusAfter(change, { type: 'capacity_found' }),
        step: 'drain_work',
        targetLocation: hold.location,
        operation: {
          kind: 'plan_change',
          id: change.changeId,
          step: 'drain',
          target: { plan: change.toPlan, location: hold.location },
        },
      },
      now,
    ),
  ]);
  // Lost a race (the slot, the Stack or the change moved): look again at once.
  return moved ? { ...input, step: 'drain_work', waitSeconds: 0 } : { ...input, waitSeconds: 1 };
};
