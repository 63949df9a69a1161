import { isTerminal } from '#core/plan-change.ts';
import { logger } from '#ports/logger.ts';
import { startPlanChange } from '#ports/workflows.ts';
import { getPlanChange, listStartsOwed, type PlanChange, recordStartAnswered } from '#store/plan-changes.ts';
import { executionOf } from './record.ts';

/**
 * How long after its confirmation a change's execution start may still be the confirm's to make;
 * after it the sweep makes it. Longer than any confirm request runs (the API's 29 s), so the sweep
 * does not race a confirm that is still answering (a race would be harmless: the start is
 * idempotent by name).
 */
export const START_GRACE_MS = 2 * 60_000;

/** Owed starts the sweep makes per run at most (the rest wait for the next run). */
const STARTS_PER_SWEEP = 25;

/** From when the sweep owes a change confirmed at `confirmedAt` its start. */
export const startDueAt = (confirmedAt: Date): string =>
  new Date(confirmedAt.getTime() + START_GRACE_MS).toISOString();

/**
 * Starts the change's execution, named after the change: a start of a name that exists (running
 * with the same input, or moved on, or ended) starts nothing and is success, so a start whose
 * answer was lost is never doubled. Then records that the start was answered (the sweep no longer
 * owes it); that record failing only means the sweep starts it once more, which is again a no-op.
 */
export const startExecution = async (change: PlanChange): Promise<void> => {
  await startPlanChange(executionOf(change));
  await recordStartAnswered(change.tenantId, change.changeId).catch((error: unknown) =>
    logger.warn('plan change start answered but not recorded; the sweep starts it again (a no-op)', {
      changeId: change.changeId,
      error: error as Error,
    }),
  );
};

/**
 * The confirm's start: a refused or unanswered start does not fail the request (the change is
 * recorded, and the tenant is told it is confirmed): the sweep starts it after START_GRACE_MS.
 * Answers whether the start was answered now.
 */
export const startOrLeaveToSweep = async (change: PlanChange): Promise<boolean> => {
  try {
    await startExecution(change);
    return true;
  } catch (error) {
    logger.warn('plan change start failed; the sweep starts it after its grace', {
      changeId: change.changeId,
      tenantId: change.tenantId,
      error: error as Error,
    });
    return false;
  }
};

export interface OwedStarts {
  /** Executions started (or found started) for changes that were still open. */
  started: number;
  /** Owed starts that failed again (retried by the next sweep). */
  failed: number;
  itemsRead: number;
}

/**
 * The sweep's part: every change whose start is owed since before `now` gets its execution started
 * from what its record says (a change that has ended meanwhile just leaves the owed list). Stops
 * starting new ones at `deadline` (a performance.now() instant); what is left waits for the next run.
 */
export const startOwedPlanChanges = async (now: Date, deadline: number): Promise<OwedStarts> => {
  const result: OwedStarts = { started: 0, failed: 0, itemsRead: 0 };
  const { owed, itemsRead } = await listStartsOwed(now, STARTS_PER_SWEEP);
  result.itemsRead = itemsRead;
  for (const entry of owed) {
    if (performance.now() >= deadline) break;
    try {
      const change = await getPlanChange(entry.tenantId, entry.changeId);
      if (change && !isTerminal(change.status)) {
        await startExecution(change);
        result.started++;
        logger.info('plan change execution started by the sweep', {
          changeId: entry.changeId,
          tenantId: entry.tenantId,
          startDueAt: entry.startDueAt,
        });
      } else await recordStartAnswered(entry.tenantId, entry.changeId);
    } catch (error) {
      result.failed++;
      logger.warn('plan change start still refused; the next sweep tries again', {
        changeId: entry.changeId,
        tenantId: entry.tenantId,
        error: error as Error,
      });
    }
  }
  return result;
};
