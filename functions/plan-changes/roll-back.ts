import { planChangeOutcomeEmail } from '#core/emails.ts';
import { isTerminal, type PlanChangeExecution } from '#core/plan-change.ts';
import { CAPACITY_LOOK_SECONDS } from '#core/plan-change-pacing.ts';
import type { PlanChangeReason } from '#core/tenant-reasons.ts';
import { config } from '#ports/config.ts';
import { type PlanChange, planChangeUpdate } from '#store/plan-changes.ts';
import type { StoredStack } from '#store/stacks.ts';
import { applyStackWrites, type TransactItem } from '#store/transact.ts';
import { endWrites, readRun, requesterEmail } from './record.ts';

/**
 * The write that sends a change to its roll back, with the reason (what the RollBack task reads):
 * our code, and the Dispatcher's own words when it gave some (kept for operators only).
 */
export const toRollBack = (
  change: PlanChange,
  reason: { code: PlanChangeReason; dispatcherReason?: string | undefined },
  now: Date,
): TransactItem =>
  planChangeUpdate(
    change,
    { step: 'roll_back', reasonCode: reason.code, dispatcherReason: reason.dispatcherReason },
    now,
  );

/**
 * THE roll back task: any failure before the billing commit ends the change `rolled_back`: the
 * held place is given back, admission reopens on the previous Plan, billing is unchanged, and one
 * email tells the administrator. A change whose billing committed is never rolled back: it
 * completes instead.
 */
export const rollBack = async (input: PlanChangeExecution, now: Date): Promise<PlanChangeExecution> => {
  const run = await readRun(input);
  if (!run) return { ...input, step: 'done', waitSeconds: 0 };
  const { change, stack } = run;
  if (isTerminal(change.status)) return { ...input, step: 'done', waitSeconds: 0 };
  if (change.final) return { ...input, step: 'complete', waitSeconds: 0 };
  // A look for capacity that failed holds nothing to undo: the change keeps waiting (and expires).
  if (change.status === 'waiting_for_capacity')
    return { ...input, step: 'find_capacity', waitSeconds: CAPACITY_LOOK_SECONDS };
  const ended = await applyStackWrites(
    await rollBackWrites(change, stack, change.reasonCode ?? 'move_failed', now),
  );
  return ended ? { ...input, step: 'done', waitSeconds: 0 } : { ...input, step: 'roll_back', waitSeconds: 1 };
};

/**
 * The writes that end a change `rolled_back` for `reason`, with its one email (the outbox key
 * `plan-change:<id>:rolled_back` makes it once, however often the step runs): a failure before
 * the billing commit (`failed`), or a waiting change that can no longer go on
 * (`tenant_left_active`: billing overdue, the tenant leaving, the Stack being torn down).
 */
export const rollBackWrites = async (
  change: PlanChange,
  stack: StoredStack,
  reason: PlanChangeReason,
  now: Date,
  event: { type: 'failed' } | { type: 'tenant_left_active' } = { type: 'failed' },
) => {
  const to = await requesterEmail(change);
  return endWrites({
    change,
    stack,
    event,
    reason,
    now,
    email: to
      ? {
          to,
          content: planChangeOutcomeEmail({
            outcome: 'rolled_back',
            stackName: stack.name,
            fromPlan: change.fromPlan,
            toPlan: change.toPlan,
            reasonCode: reason,
            appUrl: config.tenantAppUrl(),
          }),
        }
      : undefined,
  });
};
