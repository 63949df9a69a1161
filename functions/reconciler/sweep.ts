import type { Context } from 'aws-lambda';
import { logger } from '#http/logger.ts';
import { clock } from '#ports/clock.ts';
import { listDueTenants } from '#store/due.ts';
import { drainIntake, type IntakeSummary } from './intake.ts';
import { sendPendingEmails } from './outbox.ts';
import { reconcileTenant } from './reconcile.ts';
import { notifyWaitlist } from './waitlist.ts';

/** Tenants reconciled side by side: about what Stripe's test-mode read limit (25/s) allows at ~300 ms a read. */
const PARALLEL = 8;
/** Time kept free before the Lambda timeout. */
const SAFETY_MS = 10_000;
/** The longest a sweep works, whatever the timeout. */
const MAX_BUDGET_MS = 50_000;

export interface SweepSummary {
  intake: IntakeSummary;
  reconciled: number;
  transitions: { tenantId: string; from: string; to: string; reason: string }[];
  conflicts: number;
  /** Tenants whose reconciliation failed this run (they stay due). */
  failed: number;
  waitlistNotified: number;
  emailsSent: number;
  emailsFailed: number;
  /** Items read from the due index, the waitlist index and the outbox index. */
  indexItemsRead: number;
  durationMs: number;
}

/**
 * One sweep: drain the intake queue, reconcile every due tenant from the processor's truth,
 * tell waitlisted tenants of capacity, send the outbox. Works within `budgetMs`; what is left stays
 * due for the next run.
 */
export const runSweep = async (budgetMs: number): Promise<SweepSummary> => {
  const started = performance.now();
  const deadline = started + budgetMs;
  const now = () => clock().now();
  const intake = await drainIntake(now, deadline);
  const summary: SweepSummary = {
    intake,
    reconciled: 0,
    transitions: [],
    conflicts: 0,
    failed: 0,
    waitlistNotified: 0,
    emailsSent: 0,
    emailsFailed: 0,
    indexItemsRead: 0,
    durationMs: 0,
  };
  for (;;) {
    if (performance.now() >= deadline) break;
    const { due, itemsRead } = await listDueTenants(now(), 100);
    summary.indexItemsRead += itemsRead;
    if (due.length === 0) break;
    let committedAny = false;
    for (let start = 0; start < due.length && performance.now() < deadline; start += PARALLEL) {
      const outcomes = await Promise.all(
        due.slice(start, start + PARALLEL).map((entry) =>
          reconcileTenant(entry.tenantId, now()).catch((error: unknown) => {
            // One tenant's trouble (say, the processor down) must not stop the others; it stays due.
            logger.error('tenant not reconciled; it stays due', {
              tenantId: entry.tenantId,
              error: error as Error,
            });
            summary.failed++;
            return undefined;
          }),
        ),
      );
      for (const outcome of outcomes) {
        if (!outcome) continue;
        if (!outcome.committed) {
          summary.conflicts++;
          continue;
        }
        committedAny = true;
        summary.reconciled++;
        for (const t of outcome.transitions)
          summary.transitions.push({ tenantId: outcome.tenantId, from: t.from, to: t.to, reason: t.reason });
      }
    }
    // Everything read conflicted (another sweep, or new events): leave it for the next run.
    if (!committedAny) break;
  }
  const waitlist = await notifyWaitlist(now());
  summary.waitlistNotified = waitlist.notified;
  summary.indexItemsRead += waitlist.itemsRead;
  const emails = await sendPendingEmails(now, deadline + SAFETY_MS / 2);
  summary.emailsSent = emails.sent;
  summary.emailsFailed = emails.failed;
  summary.indexItemsRead += emails.itemsRead;
  summary.durationMs = Math.round(performance.now() - started);
  return summary;
};

/** The reconciler Lambda: every minute from the EventBridge schedule, and when intake nudges it. */
export const handler = async (_event: unknown, context?: Context): Promise<SweepSummary> => {
  const remaining = context?.getRemainingTimeInMillis?.() ?? 60_000;
  const summary = await runSweep(Math.min(MAX_BUDGET_MS, remaining - SAFETY_MS));
  logger.info('sweep', { ...summary, transitions: summary.transitions.length });
  return summary;
};
