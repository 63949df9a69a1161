/** The tenant billing lifecycle states (spec §3). */
export const BILLING_STATES = ['provisioning', 'active', 'past-due', 'suspended', 'decommissioning'] as const;
export type BillingState = (typeof BILLING_STATES)[number];
