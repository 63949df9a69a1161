import type { BillingState } from '../../functions/core/billing-state.ts';
import type { ProcessorTruth } from '../../functions/core/lifecycle.ts';

const DAY = 86_400_000;

/**
 * A small oracle of the billing lifecycle, written differently from the rules: it remembers when
 * the tenant entered past-due and measures 7 and 21 days from there.
 */
export class LifecycleOracle {
  state: BillingState = 'provisioning';
  history: string[] = [];
  /** Set when an event never seen before reached intake since the last sweep. */
  eventSinceLastSweep = false;
  private pastDueSince: number | undefined;

  private go(to: BillingState) {
    this.history.push(`${this.state}->${to}`);
    this.state = to;
  }

  /** Does a running grace end by `now`? */
  graceDue(now: number): boolean {
    if (this.pastDueSince === undefined) return false;
    if (this.state === 'past-due') return now >= this.pastDueSince + 7 * DAY;
    if (this.state === 'suspended') return now >= this.pastDueSince + 21 * DAY;
    return false;
  }

  /** What a look at the tenant with this truth at this time decides. */
  look(truth: ProcessorTruth, now: number): void {
    if (this.state === 'decommissioning') return;
    if (this.state === 'provisioning') {
      if (truth === 'covered') this.go('active');
      return;
    }
    if (this.state === 'active') {
      if (truth === 'payment_failed') {
        this.go('past-due');
        this.pastDueSince = now;
      } else if (truth === 'cancelled') this.go('decommissioning');
      return;
    }
    if (truth === 'covered') {
      this.go('active');
      this.pastDueSince = undefined;
      return;
    }
    if (this.state === 'past-due' && this.graceDue(now)) this.go('suspended');
    if (this.state === 'suspended' && this.graceDue(now)) this.go('decommissioning');
  }

  /** A sweep looks only at a due tenant: a new event arrived, or a grace ended. */
  sweep(truth: ProcessorTruth, now: number): void {
    const due = this.eventSinceLastSweep || this.graceDue(now);
    this.eventSinceLastSweep = false;
    if (due) this.look(truth, now);
  }
}
