/**
 * A small, independent oracle of the tenant billing lifecycle, for the property test. It imports
 * nothing from functions/: its own table says what each processor status means, and it remembers
 * when it last looked and when a grace ends instead of asking the rules.
 *
 * The rules it encodes (the money-safety issue, items 15 and the lead's brief):
 * - What the processor says, from the subscription: `active`/`trialing` with no scheduled cancel:
 *   covered; `past_due`, `unpaid`, `incomplete`, `paused`: payment failed; `canceled`: ended; a
 *   scheduled cancel on a subscription not yet `canceled`: leaving; `incomplete_expired` or no
 *   subscription: nothing.
 * - provisioning -> active when covered. active -> past-due when payment failed (grace 7 days from
 *   the failed payment: the `created` time of the subscription's earliest open invoice, or the
 *   time of the look that first saw the failure when there is none); active -> decommissioning
 *   when leaving or ended. past-due/suspended -> active when covered. past-due -> suspended when
 *   its grace ended (14 more days from the end of the past-due grace); suspended ->
 *   decommissioning when that ended. One late look may pass several transitions.
 *   decommissioning is terminal.
 * - Reasons: checkout_completed, payment_failed, past_due_grace_elapsed, suspended_grace_elapsed,
 *   payment_recovered; active -> decommissioning: cancelled_in_portal for a scheduled cancel, and
 *   for an ended subscription by `cancellation_details.reason`: payment_failed ->
 *   cancelled_after_failed_payments, payment_disputed -> cancelled_payment_disputed,
 *   cancellation_requested or none -> cancelled_by_operator.
 * - The sweep looks only at a due tenant: an event never seen before arrived since the last sweep,
 *   a running grace ended, or 24 h passed since the last look while active (or provisioning: every
 *   tenant here has a processor customer).
 *
 * Readings chosen where the rules leave a case open (told to the lead):
 * - `incomplete_expired` with a scheduled cancel is "nothing" (it never started), not "leaving".
 * - A `canceled` subscription that also still says cancel_at_period_end (a portal cancel that took
 *   effect before we looked) is "ended", and its reason is cancelled_in_portal: the tenant asked to
 *   leave at the period end, whatever cancellation_details says.
 * - A tenant never looked at has no 24 h timer running: before its first look only an event (or
 *   nothing) makes it due. The timer starts at the first look.
 * - A look that changes nothing still counts as a look (it restarts the 24 h timer).
 * - The checkout: starting one makes the sweep look at the tenant when the Checkout Session
 *   expires (its place is released then unless paid); after that, a provisioning tenant whose
 *   checkout was paid but whose subscription does not cover it yet is looked at again a minute
 *   after each look. Both only bring a paid tenant to active sooner, which is what a paying user
 *   expects; they are not in the brief's list of due reasons, so they are kept apart here.
 */

const DAY = 86_400_000;
const HOUR = 3_600_000;
/** A paid checkout whose tenant is still provisioning is looked at again this soon. */
const PAID_CHECKOUT_RELOOK = 60_000;

export type State = 'provisioning' | 'active' | 'past-due' | 'suspended' | 'decommissioning';

export type ProcessorStatus =
  | 'incomplete'
  | 'incomplete_expired'
  | 'trialing'
  | 'active'
  | 'past_due'
  | 'unpaid'
  | 'canceled'
  | 'paused';

export type CancellationReason = 'cancellation_requested' | 'payment_failed' | 'payment_disputed' | null;

/** What a status alone means (a scheduled cancel is applied on top, see `effectOf`). */
const STATUS_EFFECT: Record<ProcessorStatus, 'covered' | 'failed' | 'ended' | 'nothing'> = {
  trialing: 'covered',
  active: 'covered',
  past_due: 'failed',
  unpaid: 'failed',
  incomplete: 'failed',
  paused: 'failed',
  canceled: 'ended',
  incomplete_expired: 'nothing',
};

/** The reason recorded when an ended subscription makes an active tenant leave. */
const ENDED_REASON: Record<string, string> = {
  payment_failed: 'cancelled_after_failed_payments',
  payment_disputed: 'cancelled_payment_disputed',
  cancellation_requested: 'cancelled_by_operator',
  none: 'cancelled_by_operator',
};

/** What the processor says about the tenant's subscription at a look. */
export interface ProcessorView {
  status: ProcessorStatus;
  cancelScheduled: boolean;
  cancellationReason: CancellationReason;
  /** `created` (ms) of the subscription's earliest open invoice, if it has one. */
  earliestOpenInvoiceAt: number | undefined;
}

export type Effect = 'covered' | 'failed' | 'leaving' | 'ended' | 'nothing';

export const effectOf = (view: ProcessorView | undefined): Effect => {
  if (!view) return 'nothing';
  const effect = STATUS_EFFECT[view.status];
  if (effect === 'nothing' || effect === 'ended') return effect;
  return view.cancelScheduled ? 'leaving' : effect;
};

/**
 * The older, coarser input (test/unit/lifecycle.test.ts compares the pure rules with this oracle
 * word by word): what the processor says, already classified. `cancelled` is a scheduled cancel.
 */
export type Truth = 'covered' | 'payment_failed' | 'cancelled' | 'none';
const TRUTH_EFFECT: Record<Truth, Effect> = {
  covered: 'covered',
  payment_failed: 'failed',
  cancelled: 'leaving',
  none: 'nothing',
};

export interface OracleTransition {
  from: State;
  to: State;
  reason: string;
}

export class LifecycleOracle {
  state: State = 'provisioning';
  /** When the running grace ends (ms), in past-due and suspended. */
  graceDeadline: number | undefined;
  /** Every transition, with its reason. */
  transitions: OracleTransition[] = [];
  /** The same as `from->to` words. */
  history: string[] = [];
  /** When the sweep last looked at the tenant (ms), if ever. */
  lastLook: number | undefined;
  /** Set when an event never seen before reached intake since the last sweep. */
  eventSinceLastSweep = false;
  /** When the tenant's (paid) Checkout Session expires (ms), if it started one. */
  checkoutExpiresAt: number | undefined;

  private go(to: State, reason: string, graceDeadline?: number) {
    this.transitions.push({ from: this.state, to, reason });
    this.history.push(`${this.state}->${to}`);
    this.state = to;
    this.graceDeadline = graceDeadline;
  }

  /** Does the sweep at `now` owe the tenant a look? */
  isDue(now: number): boolean {
    if (this.state === 'decommissioning') return false;
    if (this.eventSinceLastSweep) return true;
    if (this.state === 'past-due' || this.state === 'suspended')
      return this.graceDeadline !== undefined && now >= this.graceDeadline;
    if (this.lastLook !== undefined && now >= this.lastLook + 24 * HOUR) return true;
    if (this.state === 'provisioning' && this.checkoutExpiresAt !== undefined) {
      const checkoutLook =
        this.lastLook === undefined || this.lastLook < this.checkoutExpiresAt
          ? this.checkoutExpiresAt
          : this.lastLook + PAID_CHECKOUT_RELOOK;
      return now >= checkoutLook;
    }
    return false;
  }

  /** One look with this processor view at this time: every transition due, in order. */
  look(seen: ProcessorView | Truth | undefined, now: number): OracleTransition[] {
    const before = this.transitions.length;
    const view = typeof seen === 'string' ? undefined : seen;
    const effect = typeof seen === 'string' ? TRUTH_EFFECT[seen] : effectOf(seen);
    for (let guard = 0; guard < 5; guard++) {
      const state = this.state;
      if (state === 'decommissioning') break;
      if (state === 'provisioning') {
        if (effect === 'covered') this.go('active', 'checkout_completed');
        break;
      }
      if (state === 'active') {
        if (effect === 'failed') {
          const failedAt = view?.earliestOpenInvoiceAt ?? now;
          this.go('past-due', 'payment_failed', failedAt + 7 * DAY);
          continue;
        }
        if (effect === 'leaving') this.go('decommissioning', 'cancelled_in_portal');
        else if (effect === 'ended')
          this.go(
            'decommissioning',
            view?.cancelScheduled
              ? 'cancelled_in_portal'
              : (ENDED_REASON[view?.cancellationReason ?? 'none'] ?? 'cancelled_by_operator'),
          );
        break;
      }
      // past-due or suspended
      if (effect === 'covered') {
        this.go('active', 'payment_recovered');
        break;
      }
      const deadline = this.graceDeadline;
      if (deadline === undefined || now < deadline) break;
      if (state === 'past-due') this.go('suspended', 'past_due_grace_elapsed', deadline + 14 * DAY);
      else this.go('decommissioning', 'suspended_grace_elapsed');
    }
    return this.transitions.slice(before);
  }

  /** A sweep at `now`: looks if the tenant is due; answers the transitions it made. */
  sweep(view: ProcessorView | undefined, now: number): OracleTransition[] {
    const due = this.isDue(now);
    this.eventSinceLastSweep = false;
    if (!due) return [];
    this.lastLook = now;
    return this.look(view, now);
  }
}
