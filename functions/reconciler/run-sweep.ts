import { randomUUID } from 'node:crypto';
import { reconcileRetryAt } from '#core/reconcile-backoff.ts';
import { clock } from '#ports/clock.ts';
import { logger } from '#ports/logger.ts';
import { recordSweep } from '#ports/metrics.ts';
import { NUDGE_WINDOW_MS } from '#ports/nudge.ts';
import { asSweep } from '#ports/rate-limit.ts';
import { type DueTenant, listDueTenants, recordReconcileFailure } from '#store/due.ts';
import {
  lastSweepNudge,
  releaseSweepLease,
  type SweepLeaseBusy,
  takeSweepLease,
} from '#store/sweep-lease.ts';
import { startOwedPlanChanges } from '../plan-changes/start.ts';
import { drainIntake, type IntakeSummary } from './intake.ts';
import { sendPendingEmails } from './outbox.ts';
import { reconcileTenant } from './reconcile.ts';
import { notifyWaitlist } from './waitlist.ts';

/**
 * Tenants reconciled side by side at most. The pace is set by the processor's rate limiter
 * (functions/ports/rate-limit.ts: every processor call waits its turn), not by this number: it
 * only has to be large enough to keep the limiter busy while calls are in flight.
 */
export const IN_FLIGHT = 32;
/** Due tenants read per query round (shared fairly across the due shards). */
const DUE_PAGE = 100;
/**
 * Intake messages taken per round before a page of due tenants gets its turn: intake and
 * reconciliation take turns, so a flood of events cannot use the whole sweep.
 */
const INTAKE_ROUND = 100;
/** Time kept free before the Lambda timeout. */
const SAFETY_MS = 10_000;
/** The longest a sweep works, whatever the timeout. */
const MAX_BUDGET_MS = 50_000;

export interface SweepSummary {
  intake: IntakeSummary;
  reconciled: number;
  transitions: { tenantId: string; from: string; to: string; reason: string }[];
  conflicts: number;
  /** Tenants whose reconciliation failed this run. */
  failed: number;
  /** Of those, the ones put off by the backoff (30 s doubling to 1 h): they are retried later, not at once. */
  backedOff: number;
  waitlistNotified: number;
  /** Plans a checkout could be placed on in the Home Region now (the NoPlaceablePlan alarm's gauge). */
  homeRegionPlaceablePlans: number;
  emailsSent: number;
  /** Send attempts that failed (each retried after a backoff, or parked). */
  emailsFailed: number;
  /** Emails parked as `failed` after their last allowed attempt (`npm run ops -- outbox list`). */
  emailsParked: number;
  /**
   * Plan Change executions the sweep started because the confirm's start was refused or went
   * unanswered (functions/plan-changes/start.ts), and owed starts refused again (tried next run).
   */
  planChangesStarted: number;
  planChangeStartsFailed: number;
  /** Items read from the due index, the waitlist index, the owed starts and the outbox index. */
  indexItemsRead: number;
  durationMs: number;
}

/**
 * One sweep: drain the intake queue, reconcile every due tenant from the processor's truth,
 * tell waitlisted tenants of capacity, send the outbox. Works within `budgetMs`; what is left stays
 * due for the next run.
 */
export const runSweep = (budgetMs: number): Promise<SweepSummary> => asSweep(() => sweepOnce(budgetMs));

const sweepOnce = async (budgetMs: number): Promise<SweepSummary> => {
  const started = performance.now();
  const deadline = started + budgetMs;
  const now = () => clock().now();
  const summary: SweepSummary = {
    intake: { applied: 0, duplicates: 0, unmatched: 0, failed: 0 },
    reconciled: 0,
    transitions: [],
    conflicts: 0,
    failed: 0,
    backedOff: 0,
    waitlistNotified: 0,
    homeRegionPlaceablePlans: 0,
    emailsSent: 0,
    emailsFailed: 0,
    emailsParked: 0,
    planChangesStarted: 0,
    planChangeStartsFailed: 0,
    indexItemsRead: 0,
    durationMs: 0,
  };
  /** A failed tenant waits before the next attempt, so that it cannot take every sweep's turn. */
  const backOff = async (entry: DueTenant, error: unknown): Promise<boolean> => {
    const failures = entry.reconcileFailures + 1;
    const at = now();
    const retryAt = reconcileRetryAt(failures, at);
    const recorded = await recordReconcileFailure(entry, failures, retryAt, at).catch(
      (writeError: unknown) => {
        logger.error('reconcile failure not recorded', {
          tenantId: entry.tenantId,
          error: writeError as Error,
        });
        return false;
      },
    );
    // One tenant's trouble (say, the processor down) must not stop the others.
    logger.error('tenant not reconciled; retried after a backoff', {
      tenantId: entry.tenantId,
      reconcileFailures: failures,
      retryAt: recorded ? retryAt.toISOString() : 'when next due',
      error: error as Error,
    });
    return recorded;
  };
  let intakeEmpty = false;
  for (;;) {
    if (performance.now() >= deadline) break;
    // Intake and reconciliation take turns: a round of events, then a page of due tenants.
    if (!intakeEmpty) {
      const intake = await drainIntake(now, deadline, INTAKE_ROUND);
      summary.intake.applied += intake.applied;
      summary.intake.duplicates += intake.duplicates;
      summary.intake.unmatched += intake.unmatched;
      summary.intake.failed += intake.failed;
      intakeEmpty = intake.empty;
    }
    const { due, itemsRead } = await listDueTenants(now(), DUE_PAGE);
    summary.indexItemsRead += itemsRead;
    if (due.length === 0) {
      if (intakeEmpty) break;
      continue;
    }
    let progressed = false;
    let next = 0;
    const worker = async () => {
      for (;;) {
        if (performance.now() >= deadline) return;
        const entry = due[next++];
        if (!entry) return;
        let outcome: Awaited<ReturnType<typeof reconcileTenant>>;
        try {
          outcome = await reconcileTenant(entry.tenantId, now());
        } catch (error) {
          summary.failed++;
          if (await backOff(entry, error)) {
            summary.backedOff++;
            // It left the due window: the next read finds other tenants.
            progressed = true;
          }
          continue;
        }
        if (!outcome.committed) {
          summary.conflicts++;
          continue;
        }
        progressed = true;
        summary.reconciled++;
        for (const t of outcome.transitions)
          summary.transitions.push({ tenantId: outcome.tenantId, from: t.from, to: t.to, reason: t.reason });
      }
    };
    await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, due.length) }, worker));
    // Everything read conflicted (another sweep, or new events): leave it for the next run.
    if (!progressed && intakeEmpty) break;
  }
  // Starting a workflow writes no billing state; the sweep is only the actor that runs every minute.
  const starts = await startOwedPlanChanges(now(), deadline + SAFETY_MS / 4);
  summary.planChangesStarted = starts.started;
  summary.planChangeStartsFailed = starts.failed;
  summary.indexItemsRead += starts.itemsRead;
  const waitlist = await notifyWaitlist(now());
  summary.waitlistNotified = waitlist.notified;
  summary.homeRegionPlaceablePlans = waitlist.homePlaceable;
  summary.indexItemsRead += waitlist.itemsRead;
  const emails = await sendPendingEmails(now, deadline + SAFETY_MS / 2);
  summary.emailsSent = emails.sent;
  summary.emailsFailed = emails.failed;
  summary.emailsParked = emails.parked;
  summary.indexItemsRead += emails.itemsRead;
  summary.durationMs = Math.round(performance.now() - started);
  return summary;
};

/** A sweep that did nothing: another one holds the sweep lease (until `busyUntil`). */
export type SweepSkipped = { skipped: true } & SweepLeaseBusy;

/**
 * What the reconciler Lambda (functions/reconciler/sweep.ts) runs, given the `remaining` ms of its
 * function's time. One sweep at a time: each takes the sweep lease (functions/store/sweep-lease.ts) for the rest of
 * its function's time, and an invocation that finds it held returns at once. (No reserved
 * concurrency: it fails to deploy in accounts at the minimum concurrency quota.)
 */
export const sweepWithLease = async (remaining: number): Promise<SweepSummary | SweepSkipped> => {
  const holder = randomUUID();
  const started = clock().now();
  // Held until this invocation cannot be running any more: a crashed holder frees it then.
  const lease = await takeSweepLease(holder, started, new Date(started.getTime() + remaining));
  if ('busyUntil' in lease) {
    logger.info('sweep skipped: another sweep holds the lease', { busyUntil: lease.busyUntil });
    return { skipped: true, busyUntil: lease.busyUntil };
  }
  try {
    const budgetMs = Math.min(MAX_BUDGET_MS, remaining - SAFETY_MS);
    const until = performance.now() + budgetMs;
    let roundStarted = clock().now();
    let summary = await runSweep(budgetMs);
    // Nudges coalesce: a webhook within NUDGE_WINDOW_MS of the last nudge invoked nothing, so a
    // sweep that started within that window looks at intake again once it has passed.
    for (;;) {
      const nudgedAt = await lastSweepNudge();
      const windowEnds = nudgedAt ? nudgedAt.getTime() + NUDGE_WINDOW_MS : 0;
      if (windowEnds <= roundStarted.getTime()) break;
      const waitMs = windowEnds - clock().now().getTime();
      if (performance.now() + Math.max(0, waitMs) + 1000 >= until) break;
      if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
      roundStarted = clock().now();
      summary = mergeSummaries(summary, await runSweep(until - performance.now()));
    }
    logger.info('sweep', { ...summary, transitions: summary.transitions.length });
    recordSweep(summary);
    return summary;
  } finally {
    await releaseSweepLease(holder);
  }
};

/** Two rounds of one invocation, added up. */
const mergeSummaries = (a: SweepSummary, b: SweepSummary): SweepSummary => ({
  intake: {
    applied: a.intake.applied + b.intake.applied,
    duplicates: a.intake.duplicates + b.intake.duplicates,
    unmatched: a.intake.unmatched + b.intake.unmatched,
    failed: a.intake.failed + b.intake.failed,
  },
  reconciled: a.reconciled + b.reconciled,
  transitions: [...a.transitions, ...b.transitions],
  conflicts: a.conflicts + b.conflicts,
  failed: a.failed + b.failed,
  backedOff: a.backedOff + b.backedOff,
  waitlistNotified: a.waitlistNotified + b.waitlistNotified,
  // A gauge, not a sum: the later round's reading.
  homeRegionPlaceablePlans: b.homeRegionPlaceablePlans,
  emailsSent: a.emailsSent + b.emailsSent,
  emailsFailed: a.emailsFailed + b.emailsFailed,
  emailsParked: a.emailsParked + b.emailsParked,
  planChangesStarted: a.planChangesStarted + b.planChangesStarted,
  planChangeStartsFailed: a.planChangeStartsFailed + b.planChangeStartsFailed,
  indexItemsRead: a.indexItemsRead + b.indexItemsRead,
  durationMs: a.durationMs + b.durationMs,
});
