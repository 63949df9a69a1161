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
  cancelScheduled: boolean;
  stackLifecycle: 'running' | 'decommissioning' | 'torn_down';
  currentPlan: PlanValue;
  requestedPlan: PlanValue;
  /** Statuses of the Stack's other changes that have not ended. */
  openChanges: PlanChangeStatus[];
}): ConfirmRefusal[] => {
  const refusals: ConfirmRefusal[] = [];
  if (params.billingState === 'decommissioning') refusals.push('account_closing');
  if (params.billingState === 'past-due' || params.billingState === 'suspended')
    refusals.push('billing_overdue');
  if (params.cancelScheduled) refusals.push('cancellation_scheduled');
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
    tenant_left_active: 'cancelled',
  },
  waiting_for_work: {
    work_drained: 'preparing',
    cancel: 'cancelled',
    tenant_left_active: 'cancelled',
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
