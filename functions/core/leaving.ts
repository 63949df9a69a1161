import type { BillingState } from './billing-state.ts';
import type { Refusal } from './refusal.ts';
import { billingRefusals } from './refusals/billing.ts';
import { refuse } from './refusals/index.ts';

/**
 * What a tenant that is leaving (`decommissioning`, terminal in v1) may still do: read its billing
 * status and history, and export its data until its Stacks are torn down. Nothing new: no
 * checkout, no portal, no waitlist, no added Stack, no Plan Change.
 */
export const leavingRefusal = (tenant: {
  billingState: BillingState;
  teardownAt?: string | undefined;
}): Refusal | undefined => {
  if (tenant.billingState !== 'decommissioning') return undefined;
  const until = tenant.teardownAt ? ` until ${tenant.teardownAt}` : ' until teardown';
  return refuse('account_closing', { until }, { extra: { teardownAt: tenant.teardownAt ?? null } });
};

/**
 * Is a cancellation of the tenant's subscription scheduled (it ends at the end of the paid
 * period)? Yes while the processor reports it so, before the sweep has seen it; and yes, from
 * our own state, once the sweep moved the tenant to `decommissioning` for it (left by a portal
 * cancellation, teardown still ahead on the Clock). One cause, one answer, before and after the
 * sweep: a refusal it causes names it (`cancellation_scheduled`), not the closing it leads to.
 */
export const cancellationScheduled = (
  tenant: { billingState: BillingState; leftBy?: string | undefined; teardownAt?: string | undefined },
  processorReportsScheduled: boolean,
  now: Date,
): boolean =>
  processorReportsScheduled ||
  (tenant.billingState === 'decommissioning' &&
    tenant.leftBy === 'cancelled_in_portal' &&
    tenant.teardownAt !== undefined &&
    now.getTime() < Date.parse(tenant.teardownAt));

/** What a tenant whose cancellation is scheduled is told when it asks for something new. */
export const cancellationScheduledText = (what: string): string =>
  billingRefusals.cancellation_scheduled.words({ what });

/** The refusal of anything new (an added Stack) while a cancellation is scheduled. */
export const cancellationScheduledRefusal = (
  tenant: { teardownAt?: string | undefined },
  what: string,
): Refusal =>
  refuse('cancellation_scheduled', { what }, { extra: { teardownAt: tenant.teardownAt ?? null } });
