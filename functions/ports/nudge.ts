import { claimSweepNudge } from '#store/sweep-lease.ts';
import { config } from './config.ts';
import { traced } from './tracer.ts';

/**
 * Asks for a sweep now, without waiting for it. In the cloud an asynchronous invocation of the
 * reconciler, at most once per NUDGE_WINDOW_MS however many webhooks arrive (the window is claimed
 * in the table: functions/store/sweep-lease.ts); a sweep that starts within a window of a nudge
 * looks at intake again once the window has passed (functions/reconciler/sweep.ts), so an event
 * whose nudge was folded into another's is not left to the schedule. Locally the local sweeper,
 * which folds nudges itself: it runs again once after the current run instead of overlapping it.
 */
export const NUDGE_WINDOW_MS = 2000;

let local: (() => void) | undefined;

export const installLocalNudge = (nudge: () => void): void => {
  local = nudge;
};

/** Nudges the sweep; false when a nudge of the same window already did (or there is no sweep to nudge). */
export const nudgeSweep = async (now: Date): Promise<boolean> => {
  if (local) {
    local();
    return true;
  }
  const functionName = config.reconcilerFunctionName();
  if (!functionName) return false;
  if (!(await claimSweepNudge(now, NUDGE_WINDOW_MS))) return false;
  const { InvokeCommand, LambdaClient } = await import('@aws-sdk/client-lambda');
  await traced(new LambdaClient({})).send(
    new InvokeCommand({
      FunctionName: functionName,
      InvocationType: 'Event',
      Payload: Buffer.from('{"source":"nudge"}'),
    }),
  );
  return true;
};
