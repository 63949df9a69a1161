import type { Context } from 'aws-lambda';
import { type SweepSkipped, type SweepSummary, sweepWithLease } from './run-sweep.ts';

/**
 * The reconciler Lambda: every minute from the EventBridge schedule, and when intake nudges it (at
 * most once per NUDGE_WINDOW_MS; an asynchronous invocation is dropped after a minute and never
 * retried: lib/infra/constructs/reconciler.ts). The sweep itself, under its lease, is
 * functions/reconciler/run-sweep.ts.
 */
export const handler = async (_event: unknown, context?: Context): Promise<SweepSummary | SweepSkipped> =>
  sweepWithLease(context?.getRemainingTimeInMillis?.() ?? 60_000);
