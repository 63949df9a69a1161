import { NUDGE_WINDOW_MS, sweepInvoker } from '#ports/nudge.ts';
import { claimSweepNudge } from '#store/sweep-lease.ts';

/**
 * Nudges the sweep (functions/ports/nudge.ts says how); false when a nudge of the same window
 * already did (or there is no sweep to nudge). In the cloud the window is claimed in the table
 * first (functions/store/sweep-lease.ts), so a burst of webhooks invokes the reconciler once.
 */
export const nudgeSweep = async (now: Date): Promise<boolean> => {
  const sweep = sweepInvoker();
  if (!sweep) return false;
  if (sweep.kind === 'local') {
    sweep.invoke();
    return true;
  }
  if (!(await claimSweepNudge(now, NUDGE_WINDOW_MS))) return false;
  await sweep.invoke();
  return true;
};
