import type { BillingState } from './billing-state.ts';

/**
 * The tenant billing lifecycle (spec §3), decided only by the reconciler sweep from the
 * processor's current truth and the Clock. Events are triggers; their order means nothing.
 */

export const PAST_DUE_GRACE_DAYS = 7;
export const SUSPENDED_GRACE_DAYS = 14;
const DAY_MS = 86_400_000;

/**
 * What the processor says about the tenant's subscription now:
 * - `covered`: status `active` or `trialing`, and no cancellation requested;
 * - `payment_failed`: status `past_due`, `unpaid` or `incomplete` (a payment failed and is not recovered);
 * - `cancelled`: the tenant cancelled (cancellation scheduled at period end, or the subscription ended);
 * - `none`: no subscription (yet), or one that never started (`incomplete_expired`).
 */
export type ProcessorTruth = 'covered' | 'payment_failed' | 'cancelled' | 'none';

export interface SubscriptionFacts {
  status: string;
  cancelAtPeriodEnd: boolean;
}

export const classifySubscription = (subscription: SubscriptionFacts | undefined): ProcessorTruth => {
  if (!subscription) return 'none';
  if (subscription.status === 'canceled' || subscription.cancelAtPeriodEnd) return 'cancelled';
  if (subscription.status === 'active' || subscription.status === 'trialing') return 'covered';
  if (
    subscription.status === 'past_due' ||
    subscription.status === 'unpaid' ||
    subscription.status === 'incomplete'
  ) {
    return 'payment_failed';
  }
  return 'none';
};

/** Tenant-visible reasons of a transition (never processor ids). */
export type TransitionReason =
  | 'checkout_completed'
  | 'payment_failed'
  | 'past_due_grace_elapsed'
  | 'suspended_grace_elapsed'
  | 'payment_recovered'
  | 'cancelled_in_portal';

export interface LifecycleState {
  state: BillingState;
  /** When the running grace ends (past-due and suspended only), ISO 8601. */
  graceDeadline: string | null;
}

export interface Transition {
  from: BillingState;
  to: BillingState;
  reason: TransitionReason;
  graceDeadline: string | null;
}

const plusDays = (iso: string | Date, days: number) =>
  new Date(new Date(iso).getTime() + days * DAY_MS).toISOString();

/** The one transition the truth and the clock call for now, or undefined when the state stands. */
export const nextTransition = (
  current: LifecycleState,
  truth: ProcessorTruth,
  now: Date,
): Transition | undefined => {
  const { state, graceDeadline } = current;
  const elapsed = graceDeadline !== null && now.getTime() >= Date.parse(graceDeadline);
  switch (state) {
    case 'provisioning':
      return truth === 'covered'
        ? { from: state, to: 'active', reason: 'checkout_completed', graceDeadline: null }
        : undefined;
    case 'active':
      if (truth === 'payment_failed') {
        return {
          from: state,
          to: 'past-due',
          reason: 'payment_failed',
          graceDeadline: plusDays(now, PAST_DUE_GRACE_DAYS),
        };
      }
      if (truth === 'cancelled')
        return { from: state, to: 'decommissioning', reason: 'cancelled_in_portal', graceDeadline: null };
      return undefined;
    case 'past-due':
      if (truth === 'covered')
        return { from: state, to: 'active', reason: 'payment_recovered', graceDeadline: null };
      // The suspended grace runs from the end of the past-due grace, however late the sweep looks.
      if (elapsed && graceDeadline) {
        return {
          from: state,
          to: 'suspended',
          reason: 'past_due_grace_elapsed',
          graceDeadline: plusDays(graceDeadline, SUSPENDED_GRACE_DAYS),
        };
      }
      return undefined;
    case 'suspended':
      if (truth === 'covered')
        return { from: state, to: 'active', reason: 'payment_recovered', graceDeadline: null };
      if (elapsed)
        return { from: state, to: 'decommissioning', reason: 'suspended_grace_elapsed', graceDeadline: null };
      return undefined;
    case 'decommissioning':
      return undefined;
  }
};

/**
 * Every transition due now, applied in order (a sweep that looks late may pass past-due and
 * suspended in one go), and the state they lead to.
 */
export const settle = (
  current: LifecycleState,
  truth: ProcessorTruth,
  now: Date,
): { state: LifecycleState; transitions: Transition[] } => {
  const transitions: Transition[] = [];
  let state = current;
  for (let step = 0; step < 4; step++) {
    const transition = nextTransition(state, truth, now);
    if (!transition) break;
    transitions.push(transition);
    state = { state: transition.to, graceDeadline: transition.graceDeadline };
  }
  return { state, transitions };
};

/** When the sweep must look at the tenant again without any event: the end of a running grace. */
export const nextCheckAt = (state: LifecycleState): string | null =>
  state.state === 'past-due' || state.state === 'suspended' ? state.graceDeadline : null;
