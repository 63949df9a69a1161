import type { BillingState } from './billing-state.ts';
import type { PlanValue } from './plans.ts';

/**
 * The Plan Change status machine (pure): where a confirmed change starts, which refusals apply,
 * and every move between statuses. The workflow (Step Functions) and the API call these rules;
 * time is data compared with the Clock (`now`), never read here.
 */

export const PLAN_CHANGE_STATUSES = [
  'waiting_for_capacity',
  'waiting_for_work',
  'preparing',
  'switching',
  'verifying',
  'completed',
  'rolled_back',
  'expired',
  'superseded',
  'cancelled',
] as const;
export type PlanChangeStatus = (typeof PLAN_CHANGE_STATUSES)[number];

export const TERMINAL_STATUSES: readonly PlanChangeStatus[] = [
  'completed',
  'rolled_back',
  'expired',
  'superseded',
  'cancelled',
];

/** A queued change expires this long after its confirmation. */
export const QUEUED_EXPIRY_DAYS = 7;

export const isTerminal = (status: PlanChangeStatus): boolean => TERMINAL_STATUSES.includes(status);

/** Statuses in which the tenant may still cancel; Preparing (the final backup) closes the window. */
export const isCancellable = (status: PlanChangeStatus): boolean =>
  status === 'waiting_for_capacity' || status === 'waiting_for_work';

/** An infrastructure operation runs on the Stack: a change past Waiting for Capacity, not yet ended. */
export const isInfrastructureOperation = (status: PlanChangeStatus): boolean =>
  !isTerminal(status) && status !== 'waiting_for_capacity';

export type ConfirmRefusal =
  | 'billing_overdue'
  | 'cancellation_scheduled'
  | 'account_closing'
  | 'subscription_not_active'
  | 'plan_unchanged'
  | 'operation_in_progress'
  | 'stack_not_running';

/**
 * Every refusal a confirmation would meet, in a fixed order (the preview lists them all; the
 * confirmation answers the first). Missing capacity is not a refusal: the change queues.
 */
export const confirmRefusals = (params: {
  billingState: BillingState;
  /** The processor reports the subscription active (from the first day). */
  subscriptionActive: boolean;
  /** A cancellation is scheduled (the processor says so, or the sweep already moved the tenant for it). */
  cancelScheduled: boolean;
  stackLifecycle: 'running' | 'decommissioning' | 'torn_down';
  currentPlan: PlanValue;
  requestedPlan: PlanValue;
  /** Statuses of the Stack's other changes that have not ended. */
  openChanges: PlanChangeStatus[];
}): ConfirmRefusal[] => {
  const refusals: ConfirmRefusal[] = [];
  // A scheduled cancellation is the cause of the closing it leads to: named, before and after the
  // sweep moved the tenant to decommissioning (functions/core/leaving.ts, cancellationScheduled).
  if (params.cancelScheduled) refusals.push('cancellation_scheduled');
  else if (params.billingState === 'decommissioning') refusals.push('account_closing');
  if (params.billingState === 'past-due' || params.billingState === 'suspended')
    refusals.push('billing_overdue');
  if (params.billingState === 'active' && !params.subscriptionActive && !params.cancelScheduled)
    refusals.push('subscription_not_active');
  if (params.stackLifecycle !== 'running') refusals.push('stack_not_running');
  if (params.currentPlan === params.requestedPlan) refusals.push('plan_unchanged');
  if (params.openChanges.some(isInfrastructureOperation)) refusals.push('operation_in_progress');
  return refusals;
};

/** Where a confirmed change starts: Waiting for Work when the Stack's own location has room, else it queues. */
export const startingStatus = (roomInCurrentLocation: boolean): PlanChangeStatus =>
  roomInCurrentLocation ? 'waiting_for_work' : 'waiting_for_capacity';

export type PlanChangeEvent =
  | { type: 'capacity_found' }
  | { type: 'work_drained' }
  | { type: 'backup_done' }
  | { type: 'switched' }
  | { type: 'healthy_and_billed' }
  | { type: 'failed' }
  | { type: 'cancel' }
  | { type: 'superseded' }
  /**
   * The change can no longer go on, for a reason of ours (the tenant's billing is overdue, the
   * tenant is leaving, the Stack is being torn down): a waiting change rolls back. Only an
   * administrator's `cancel` ends a change `cancelled`.
   */
  | { type: 'tenant_left_active' }
  | { type: 'clock'; now: Date };

export interface PlanChangeState {
  status: PlanChangeStatus;
  confirmedAt: string;
}

const NEXT: Partial<Record<PlanChangeStatus, Partial<Record<PlanChangeEvent['type'], PlanChangeStatus>>>> = {
  waiting_for_capacity: {
    capacity_found: 'waiting_for_work',
    cancel: 'cancelled',
    superseded: 'superseded',
    // Ended by us, never by the tenant's cancel: rolled back (docs/plan-changes.md).
    tenant_left_active: 'rolled_back',
  },
  waiting_for_work: {
    work_drained: 'preparing',
    cancel: 'cancelled',
    tenant_left_active: 'rolled_back',
    failed: 'rolled_back',
  },
  preparing: { backup_done: 'switching', failed: 'rolled_back' },
  switching: { switched: 'verifying', failed: 'rolled_back' },
  // Billing commits once the replacement is healthy; a refused commit is retried, never rolled back.
  verifying: { healthy_and_billed: 'completed', failed: 'rolled_back' },
};

/** Has a queued change passed its 7 days? (The deadline is data: confirmation + 7 days.) */
export const queuedExpired = (confirmedAt: string, now: Date): boolean =>
  now.getTime() >= Date.parse(confirmedAt) + QUEUED_EXPIRY_DAYS * 86_400_000;

/**
 * The status after an event; the same status when the event does not apply there (a late or
 * repeated event changes nothing). Only a change still Waiting for Capacity expires, and only a
 * queued one is superseded; a change past Waiting for Work always finishes (completed or rolled back).
 */
export const applyPlanChangeEvent = (state: PlanChangeState, event: PlanChangeEvent): PlanChangeStatus => {
  if (isTerminal(state.status)) return state.status;
  if (event.type === 'clock')
    return state.status === 'waiting_for_capacity' && queuedExpired(state.confirmedAt, event.now)
      ? 'expired'
      : state.status;
  return NEXT[state.status]?.[event.type] ?? state.status;
};

/** The workflow's steps: which task runs next (docs/plan-changes.md). */
export const PLAN_CHANGE_STEPS = [
  'find_capacity',
  'drain_work',
  'prepare',
  'switch',
  'verify',
  'commit_billing',
  'complete',
  'roll_back',
  'done',
] as const;
export type PlanChangeStep = (typeof PLAN_CHANGE_STEPS)[number];

/** The state a Plan Change execution carries from task to task. */
export interface PlanChangeExecution {
  changeId: string;
  tenantId: string;
  /** Confirmation + 7 days: compared with the Clock, never waited for. */
  expiresAt: string;
  step: PlanChangeStep;
  /** How long to wait before the step's task runs (0: at once). */
  waitSeconds: number;
}

/** Work that never drains: the change rolls back after this long in Waiting for Work. */
export const DRAIN_LIMIT_HOURS = 24;
/** A Dispatcher step (backup, switch, verify) that reports nothing for this long rolls the change back. */
export const DISPATCHER_STEP_LIMIT_HOURS = 2;

export const expiryOf = (confirmedAt: Date): Date =>
  new Date(confirmedAt.getTime() + QUEUED_EXPIRY_DAYS * 86_400_000);

/** What the tenant can do next, for each status (the record's recovery message). */
export const recoveryMessage = (status: PlanChangeStatus): string => {
  switch (status) {
    case 'waiting_for_capacity':
      return 'No place for the new Plan is free yet; the change starts as soon as one is, within 7 days of confirmation. You may cancel it meanwhile.';
    case 'waiting_for_work':
      return 'New work is paused while active work finishes; you may still cancel.';
    case 'preparing':
    case 'switching':
    case 'verifying':
      return 'The change is being carried out and can no longer be cancelled; it completes or rolls back on its own.';
    case 'completed':
      return 'Nothing to do: the Stack runs on the new Plan.';
    case 'rolled_back':
      return 'The Stack is back on its previous Plan and billing is unchanged. You may confirm the change again.';
    case 'expired':
      return 'No place was free within 7 days. The Stack and billing are unchanged; you may confirm the change again.';
    case 'superseded':
      return 'A newer change of this Stack replaced this one; follow that one.';
    case 'cancelled':
      return 'The Stack and billing are unchanged. You may confirm a change again while billing is active.';
  }
};

/** A subscription's billing period (ISO times), as the billing commit found it. */
export interface BillingPeriod {
  start: string;
  end: string;
}

/**
 * The moment a billing commit prorates from: the healthy moment, or the start of the current
 * billing period when the subscription renewed after it. The processor prorates only from a moment
 * within the current period, and the renewal billed the previous Plan for the whole new period, so
 * prorating from its start moves that whole period to the new Plan.
 */
export const prorationMoment = (healthyAt: string, period: BillingPeriod | null): string =>
  period && Date.parse(period.start) > Date.parse(healthyAt) ? period.start : healthyAt;

/** Rounding between the estimate and the final adjustment: each line is rounded to the cent. */
export const ROUNDING_TOLERANCE = 2;

/**
 * Rounding between the estimate and the final adjustment for a change of `lines` proration lines:
 * each line's amount is rounded to the cent in each, a cent per line; under a discount each line's
 * discount is rounded too, a second cent per line. Never less than ROUNDING_TOLERANCE.
 */
export const roundingTolerance = (lines: number, discounted: boolean): number =>
  Math.max(ROUNDING_TOLERANCE, lines * (discounted ? 2 : 1));

/**
 * How far apart the estimate and the final adjustment may be because of time alone (minor units):
 * |new - old monthly price| x elapsed / period, plus rounding (docs/plan-changes.md).
 */
export const timeTolerance = (params: {
  monthlyDifference: number;
  elapsedSeconds: number;
  periodSeconds: number;
  /** Default: ROUNDING_TOLERANCE. */
  rounding?: number;
}): number => {
  const rounding = params.rounding ?? ROUNDING_TOLERANCE;
  return params.periodSeconds > 0
    ? (Math.abs(params.monthlyDifference) * Math.max(0, params.elapsedSeconds)) / params.periodSeconds +
        rounding
    : rounding;
};

/**
 * Why the final adjustment differs from the estimate shown at confirmation (or that it does not),
 * then what its tax is and why it may differ from the estimate's tax.
 */
export const adjustmentExplanation = (params: AdjustmentFacts): string => {
  const net = netExplanation(params);
  if (params.notBilled || params.finalTax === undefined) return net;
  const tax =
    params.estimateTax === undefined
      ? 'Its tax is the one the payment processor puts on these lines of the next invoice (each line taxed after its discount, rounded to the cent).'
      : params.estimateTax === params.finalTax
        ? 'Its tax equals the estimate’s: the payment processor taxes each of these lines of the next invoice after its discount, rounded to the cent.'
        : 'Its tax differs from the estimate’s because the payment processor taxes each of these lines of the next invoice after its discount, rounded to the cent: different amounts (or a tax rate that changed meanwhile) give a different tax.';
  return `${net} ${tax}`;
};

interface AdjustmentFacts {
  estimate: number | null;
  final: number;
  /** The estimate's moment. */
  confirmedAt: string;
  healthyAt: string;
  /** The moment the commit prorated from (absent: the healthy moment). */
  proratedFrom?: string | undefined;
  /** The billing period the commit was made in (absent on changes committed before it was kept). */
  period?: BillingPeriod | undefined;
  /** The tenant left before the billing commit: nothing was billed for the change. */
  notBilled?: 'account_closed' | undefined;
  /** The estimate's proration lines (absent on changes confirmed before they were kept: two, undiscounted). */
  estimateLines?: readonly { discount: number }[] | undefined;
  /** The estimate's tax on its adjustment (absent on changes confirmed before it was kept). */
  estimateTax?: number | undefined;
  /** The tax the next invoice puts on the final adjustment (absent: not known, or an older record). */
  finalTax?: number | undefined;
}

const netExplanation = (params: AdjustmentFacts): string => {
  const { estimate, final, confirmedAt, healthyAt, period } = params;
  if (params.notBilled === 'account_closed')
    return 'Not billed: the account was closed before the change was committed, so this change adds nothing to any invoice.';
  const from = params.proratedFrom ?? healthyAt;
  if (Date.parse(from) > Date.parse(healthyAt))
    return `Billed from the start of the new billing period (${from}): the replacement was healthy at ${healthyAt}, before the subscription renewed, and the renewal invoice billed the previous Plan for the whole new period. This adjustment moves that whole period to the new Plan; the time from ${healthyAt} to the renewal stays billed at the previous Plan (the payment processor prorates only within the current period).`;
  if (estimate === null)
    return 'The payment processor could not estimate the change at confirmation; this is the exact adjustment.';
  if (estimate === final) return 'The final adjustment equals the estimate.';
  const moments = `The estimate was prorated from the confirmation (${confirmedAt}); the final adjustment is prorated from the moment the replacement was healthy (${healthyAt})`;
  if (!period)
    return `${moments}: the time between them, and any change of the subscription or its prices meanwhile, make the difference.`;
  const [start, end, confirmed] = [period.start, period.end, confirmedAt].map(
    (t) => Date.parse(t) / 1000,
  ) as [number, number, number];
  if (confirmed < start)
    return `${moments}, in a new billing period (from ${period.start}): the estimate covered the rest of the period running at confirmation, the final adjustment the rest of the new one.`;
  // The estimate covered (end - confirmation) of the period: the monthly difference it was made at.
  const within =
    end > confirmed &&
    Math.abs(final - estimate) <=
      timeTolerance({
        monthlyDifference: (estimate * (end - start)) / (end - confirmed),
        elapsedSeconds: Date.parse(from) / 1000 - confirmed,
        periodSeconds: end - start,
        rounding: params.estimateLines
          ? roundingTolerance(
              params.estimateLines.length,
              params.estimateLines.some((line) => line.discount !== 0),
            )
          : ROUNDING_TOLERANCE,
      });
  if (within)
    return Math.abs(final) < Math.abs(estimate)
      ? `${moments}, so fewer days of the billing period remained to prorate.`
      : `${moments}; they differ by the rounding of each line to the cent.`;
  return `${moments}, and they differ by more than that time explains: the subscription or its prices changed meanwhile (for example a new price of the day for a Plan, or the price the Stack was billed at moved).`;
};
