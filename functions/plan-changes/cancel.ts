import { isCancellable, isTerminal } from '#core/plan-change.ts';
import { refuse } from '#core/refusals/index.ts';
import { stopPlanChange } from '#ports/workflows.ts';
import { getPlanChange } from '#store/plan-changes.ts';
import { applyStackWrites } from '#store/transact.ts';
import { requirePlanChange, requireStack } from '../lookups/index.ts';
import { endWrites, planChangeView } from './record.ts';

/**
 * THE cancel of a Plan Change: allowed while it waits (for capacity or for work); from Preparing on
 * the cancel window is closed. The change ends `cancelled`: admission reopens on the previous Plan,
 * a held place is given back, billing is untouched, and its execution stops.
 */
export const cancelPlanChange = async (params: { tenantId: string; changeId: string; now: Date }) => {
  let change = await requirePlanChange(params.tenantId, params.changeId);
  for (let attempt = 0; attempt < 4; attempt++) {
    if (isTerminal(change.status))
      throw refuse('plan_change_ended', { status: change.status }, { extra: { status: change.status } });
    if (!isCancellable(change.status))
      throw refuse(
        'plan_change_not_cancellable',
        { status: change.status },
        { extra: { status: change.status } },
      );
    const stack = await requireStack(params.tenantId, change.stackId);
    const writes = endWrites({
      change,
      stack,
      event: { type: 'cancel' },
      reason: 'cancelled_by_administrator',
      now: params.now,
    });
    if (await applyStackWrites(writes)) {
      await stopPlanChange(change.changeId, 'cancelled by an administrator');
      const ended = await getPlanChange(params.tenantId, change.changeId);
      return planChangeView(ended ?? change);
    }
    // The change moved on meanwhile (its workflow took a step): decide again on what it is now.
    change = await requirePlanChange(params.tenantId, params.changeId);
  }
  throw refuse('cancel_conflict');
};
