import type { BillingState } from './billing-state.ts';
import { Refusal } from './refusal.ts';

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
  return new Refusal(
    409,
    'account_closing',
    `This account is closing (decommissioning) and nothing new can be bought or changed. You can still read your billing status and export your data${until}.`,
    { extra: { teardownAt: tenant.teardownAt ?? null } },
  );
};
