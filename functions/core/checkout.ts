import type { BillingState } from './billing-state.ts';

/**
 * How long a first checkout holds its capacity reservation, which is also the Checkout Session's
 * lifetime. Stripe's minimum session lifetime is 30 minutes; one more minute keeps a request that
 * reaches Stripe a little late above it.
 */
export const CHECKOUT_LIFETIME_SECONDS = 31 * 60;

export const checkoutExpiry = (now: Date): Date => new Date(now.getTime() + CHECKOUT_LIFETIME_SECONDS * 1000);

/** Only a tenant that never completed a checkout may start one; adding Stacks and Plan Changes are other flows. */
export const mayStartFirstCheckout = (state: BillingState, hasSubscription: boolean): boolean =>
  state === 'provisioning' && !hasSubscription;
