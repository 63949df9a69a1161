import { planChangeOutcomeEmail } from '#core/emails.ts';
import type { PlanChangeExecution } from '#core/plan-change.ts';
import { targetPriceOf } from '#core/stack-growth.ts';
import { stackOnPlan } from '#core/stacks.ts';
import { config } from '#ports/config.ts';
import { releaseHoldWrite } from '#store/capacity.ts';
import { outboxPut } from '#store/outbox.ts';
import { changeHolder, planChangeUpdate } from '#store/plan-changes.ts';
import { planChangeStackWrite, releasePlaces, takePlace } from '#store/stacks.ts';
import { applyStackWrites } from '#store/transact.ts';
import { executionOf, finalView, readRun, requesterEmail, statusAfter } from './record.ts';

/** The completion email's figures: the final ones, the estimate's beside them, and why they differ. */
const emailFigures = (final: ReturnType<typeof finalView>) => ({
  amount: final.adjustment,
  tax: final.adjustmentTax,
  total: final.adjustmentTotal,
  currency: final.currency,
  estimate:
    final.estimatedAdjustment === null
      ? null
      : {
          amount: final.estimatedAdjustment,
          tax: final.estimatedAdjustmentTax,
          total: final.estimatedAdjustmentTotal,
        },
  explanation: final.explanation,
});

/**
 * THE completion: after the billing commit, the Stack runs on the new Plan (its caps and resources
 * in the desired state, admission reopened, at the held place, which becomes its placement) and its
 * old place is given back; the one completion email says the final adjustment with its tax and
 * total beside the estimate (and why they differ) and, when the Stack moved, that its IP address changed. All in one transaction.
 */
export const completeChange = async (input: PlanChangeExecution, now: Date): Promise<PlanChangeExecution> => {
  const run = await readRun(input);
  if (!run) return { ...input, step: 'done', waitSeconds: 0 };
  const { change, stack } = run;
  if (change.status !== 'verifying' || change.step !== 'complete' || !change.final)
    return executionOf(change);
  const target = change.targetLocation ?? stack.location;
  const onNewPlan = {
    ...stack,
    ...stackOnPlan({
      stackId: stack.stackId,
      name: stack.name,
      plan: change.toPlan,
      location: target,
      createdAt: stack.createdAt,
    }),
    lifecycle: stack.lifecycle,
    operation: undefined,
    // Billed from now on at the new Plan's price the commit moved it to.
    billedPriceId: (change.billingItems && targetPriceOf(change.billingItems)) ?? stack.billedPriceId,
  };
  const placed = stack.placed ?? true;
  const to = await requesterEmail(change);
  const moved = target !== change.fromLocation;
  const writes = [
    planChangeUpdate(
      change,
      {
        status: statusAfter(change, { type: 'healthy_and_billed' }),
        step: 'done',
        reasonCode: change.final.notBilled ? 'completed_not_billed' : 'completed',
      },
      now,
    ),
    planChangeStackWrite(change.tenantId, stack, onNewPlan, null),
    releaseHoldWrite(change.region, changeHolder(change.changeId)),
    ...(placed
      ? [
          takePlace(change.region, target, change.toPlan, { held: true }),
          releasePlaces(change.region, stack.location, stack.plan, 1),
        ]
      : []),
    ...(to
      ? [
          outboxPut(
            `plan-change:${change.changeId}:completed`,
            to,
            planChangeOutcomeEmail({
              outcome: 'completed',
              stackName: stack.name,
              fromPlan: change.fromPlan,
              toPlan: change.toPlan,
              movedTo: moved ? target : undefined,
              addressChanged: moved ? (change.addressChanged ?? true) : undefined,
              ...(change.final.notBilled
                ? { notBilled: true }
                : { adjustment: emailFigures(finalView(change, change.final)) }),
              appUrl: config.tenantAppUrl(),
            }),
            now,
          ),
        ]
      : []),
  ];
  const done = await applyStackWrites(writes);
  return done ? { ...input, step: 'done', waitSeconds: 0 } : { ...input, waitSeconds: 1 };
};
