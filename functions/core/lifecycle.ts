import type { BillingState } from './billing-state.ts';

/**
 * The tenant billing lifecycle (spec §3), decided only by the reconciler sweep from the
 * processor's current truth and the Clock. Events are triggers; their order means nothing.
 */

export const PAST_DUE_GRACE_DAYS = 7;
export const SUSPENDED_GRACE_DAYS = 14;
/** Every active tenant (and every provisioning tenant with a processor customer) is looked at again within a day, event or not. */
export const RECHECK_HOURS = 24;
const DAY_MS = 86_400_000;

/** Every status the processor has for a subscription. */
export const SUBSCRIPTION_STATUSES = [
  'incomplete',
  'incomplete_expired',
  'trialing',
  'active',
  'past_due',
  'unpaid',
  'canceled',
  'paused',
] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** Why the processor says a subscription ended (its cancellation details). */
export type EndedReason = 'cancellation_requested' | 'payment_failed' | 'payment_disputed' | null;

/** Why we ended or scheduled the end of a subscription ourselves (written on it, so it can be told apart). */
export const OUR_CANCEL_REASONS = [
  'suspended_grace_elapsed',
  'refund_granted',
  'duplicate_subscription',
  'account_closed',
  'tenant_left',
] as const;
export type OurCancelReason = (typeof OUR_CANCEL_REASONS)[number];

/** A processor subscription as domain facts (the processor port builds these; no processor shapes). */
export interface SubscriptionFacts {
  /** The processor's id: kept internal, never shown to a tenant. */
  id: string;
  status: SubscriptionStatus;
  /** The tenant (or someone) asked the subscription to end at the end of the paid period. */
  cancelScheduled: boolean;
  endedReason: EndedReason;
  /** Set when we ended it ourselves. */
  cancelledByUs: OurCancelReason | null;
  /** The Plan of its first item, or undefined when the price is not one of our Plans. */
  plan: string | undefined;
  createdAt: string;
  /** End of the period paid for (the end of service after a scheduled cancel). */
  periodEnd: string | null;
  /** Its first item's price and that price's monthly amount (what the first Stack was bought at). */
  firstItem?: { priceId: string; unitAmount: number; currency: string };
}

/** A subscription that can still bill: anything but ended or never started. */
export const isLiveSubscription = (status: SubscriptionStatus): boolean =>
  status !== 'canceled' && status !== 'incomplete_expired';

/**
 * What the processor says about the tenant's subscription now:
 * - `covered`: status `active` or `trialing`, and no cancellation requested;
 * - `payment_failed`: status `past_due`, `unpaid` or `incomplete` (a payment failed and is not recovered);
 * - `cancelled`: the tenant cancelled (cancellation scheduled at period end, or the subscription ended);
 * - `none`: no subscription (yet), or one that never started (`incomplete_expired`).
 */
export type ProcessorTruth = 'covered' | 'payment_failed' | 'cancelled' | 'none';

export const classifySubscription = (
  subscription: Pick<SubscriptionFacts, 'status' | 'cancelScheduled'> | undefined,
): ProcessorTruth => {
  if (!subscription) return 'none';
  if (subscription.status === 'incomplete_expired') return 'none';
  if (subscription.status === 'canceled' || subscription.cancelScheduled) return 'cancelled';
  if (subscription.status === 'active' || subscription.status === 'trialing') return 'covered';
  // past_due, unpaid, incomplete, paused: a payment is owed and not made.
  return 'payment_failed';
};

/** Tenant-visible reasons of a transition (never processor ids). */
export type TransitionReason =
  | 'checkout_completed'
  | 'payment_failed'
  | 'past_due_grace_elapsed'
  | 'suspended_grace_elapsed'
  | 'payment_recovered'
  | 'cancelled_in_portal'
  | 'cancelled_by_operator'
  | 'cancelled_after_failed_payments'
  | 'cancelled_payment_disputed'
  | 'refund_granted'
  | 'closed_by_tenant';

/** Why a `cancelled` subscription makes an active tenant leave, from the processor's cancellation details. */
export const cancellationReason = (
  subscription: Pick<SubscriptionFacts, 'status' | 'cancelScheduled' | 'endedReason' | 'cancelledByUs'>,
): TransitionReason => {
  if (subscription.cancelledByUs === 'refund_granted') return 'refund_granted';
  // A cancel at period end, whether or not the period has ended by the time we look.
  if (subscription.cancelScheduled && subscription.cancelledByUs === null) return 'cancelled_in_portal';
  if (subscription.endedReason === 'payment_failed') return 'cancelled_after_failed_payments';
  if (subscription.endedReason === 'payment_disputed') return 'cancelled_payment_disputed';
  return 'cancelled_by_operator';
};

/** What the sweep knows besides the truth: when the failed payment happened, why a cancel, a close request. */
export interface Observation {
  /** The failed payment's time as the processor reports it; the look's time when it says none. */
  failedAt?: string | null;
  /** The reason to record when the truth is `cancelled`. */
  cancelReason?: TransitionReason;
  /** A provisioning tenant's administrator asked to close the account. */
  closeRequested?: boolean;
}

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
  observation: Observation = {},
): Transition | undefined => {
  const { state, graceDeadline } = current;
  const elapsed = graceDeadline !== null && now.getTime() >= Date.parse(graceDeadline);
  // A money-back refund ends the subscription from any state but decommissioning: the tenant
  // leaves at once, whatever grace was running.
  if (
    state !== 'decommissioning' &&
    state !== 'provisioning' &&
    truth === 'cancelled' &&
    observation.cancelReason === 'refund_granted'
  )
    return { from: state, to: 'decommissioning', reason: 'refund_granted', graceDeadline: null };
  switch (state) {
    case 'provisioning':
      if (observation.closeRequested)
        return { from: state, to: 'decommissioning', reason: 'closed_by_tenant', graceDeadline: null };
      return truth === 'covered'
        ? { from: state, to: 'active', reason: 'checkout_completed', graceDeadline: null }
        : undefined;
    case 'active':
      if (truth === 'payment_failed') {
        return {
          from: state,
          to: 'past-due',
          reason: 'payment_failed',
          // The grace runs from the failed payment as the processor reports it, not from when we noticed.
          graceDeadline: plusDays(observation.failedAt ?? now, PAST_DUE_GRACE_DAYS),
        };
      }
      if (truth === 'cancelled')
        return {
          from: state,
          to: 'decommissioning',
          reason: observation.cancelReason ?? 'cancelled_in_portal',
          graceDeadline: null,
        };
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
  observation: Observation = {},
): { state: LifecycleState; transitions: Transition[] } => {
  const transitions: Transition[] = [];
  let state = current;
  for (let step = 0; step < 4; step++) {
    const transition = nextTransition(state, truth, now, observation);
    if (!transition) break;
    transitions.push(transition);
    state = { state: transition.to, graceDeadline: transition.graceDeadline };
  }
  return { state, transitions };
};

/**
 * When the sweep must look at the tenant again without any event: the end of a running grace; for
 * an active tenant (and a provisioning one with a processor customer) a day later, so that a lost
 * event never leaves it wrong for long. Decommissioning tenants are scheduled by their close-out.
 */
export const nextCheckAt = (
  state: LifecycleState,
  now?: Date,
  options: { hasCustomer?: boolean } = {},
): string | null => {
  if (state.state === 'past-due' || state.state === 'suspended') return state.graceDeadline;
  if (!now) return null;
  const recheck = new Date(now.getTime() + RECHECK_HOURS * 3_600_000).toISOString();
  if (state.state === 'active') return recheck;
  if (state.state === 'provisioning' && options.hasCustomer) return recheck;
  return null;
};

/** The earlier of two optional ISO times. */
export const earliest = (...times: (string | null | undefined)[]): string | null =>
  times.filter((t): t is string => typeof t === 'string').sort()[0] ?? null;

/** Days a tenant that left after a grace, a refund or a close keeps to export before teardown. */
export const DEFAULT_EXPORT_WINDOW_DAYS = 7;

/**
 * When a leaving tenant's Stacks are torn down: after a portal cancel, at the end of the paid
 * period (they keep serving until then); after a grace, a refund or a close, once the export window
 * has passed (admission closed, billing already cancelled).
 */
export const teardownTime = (params: {
  reason: TransitionReason;
  now: Date;
  paidThrough: string | null;
  exportWindowDays: number;
}): { teardownAt: string; admissionOpen: boolean } => {
  if (
    params.reason === 'cancelled_in_portal' &&
    params.paidThrough &&
    Date.parse(params.paidThrough) > params.now.getTime()
  )
    return { teardownAt: params.paidThrough, admissionOpen: true };
  return { teardownAt: plusDays(params.now, params.exportWindowDays), admissionOpen: false };
};
