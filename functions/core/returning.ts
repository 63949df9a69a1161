import type { BillingState } from './billing-state.ts';

/**
 * Returning customers (docs/product.md, "Coming back"): a person whose account has left starts a
 * new one with the same sign-in, once the old one is torn down (everything removed, billing
 * stopped). The new account has a new slug, a new first checkout at the prices then offered, no
 * Founding Price Lock carried over, and no second money-back refund. Pure rules only: the use case
 * is functions/tenants/slug.ts, the one write functions/store/new-account.ts `startNewAccount`.
 */

/** What a tenant tells about itself for these rules. */
export interface LeavingFacts {
  billingState: BillingState;
  slug: string | null;
  closeRequestedAt?: string | undefined;
  teardownAt?: string | undefined;
  tornDownAt?: string | undefined;
  leftBy?: string | undefined;
}

/**
 * When the person may start a new account: `now` once the account is torn down; from its teardown
 * time while it still serves or can still be exported; `soon` for a close asked for and not yet
 * carried out (the sweep does it within a minute, and a closed account that never paid has nothing
 * to export, so it is torn down at once). Undefined while the account has not left.
 */
export type NewAccountOpening = { possible: true; from: string } | { possible: false; from: string | null };

export const newAccountOpening = (tenant: LeavingFacts): NewAccountOpening | undefined => {
  if (tenant.tornDownAt) return { possible: true, from: tenant.tornDownAt };
  if (tenant.billingState === 'decommissioning') return { possible: false, from: tenant.teardownAt ?? null };
  if (tenant.closeRequestedAt) return { possible: false, from: null };
  return undefined;
};

/** The words the console and `GET /v1/me` give about a new account. */
export const newAccountText = (tenant: LeavingFacts, opening: NewAccountOpening): string => {
  const account = tenant.slug ? `"${tenant.slug}"` : 'this account';
  if (opening.possible)
    return `Your account ${account} has closed and is torn down: nothing more is billed. You can start a new account with the same sign-in: choose a new slug (the old one stays with the old account), then check out at today's prices. Your earlier invoices stay readable.`;
  if (opening.from === null)
    return `Your account ${account} is being closed, as you asked. Within a minute it is closed, and you can then start a new account with the same sign-in.`;
  return `Your account ${account} is closing: its Stacks are torn down on ${opening.from}, and you can export your data until then. From then on you can start a new account with the same sign-in (a new slug, today's prices).`;
};

/** The facts a new account carries from the person's earlier one. */
export interface CarriedFacts {
  previousTenantId: string;
  previousSlug: string | null;
  /**
   * The person had a paid subscription before (in this or an earlier account): the new account's
   * first subscription is then never founding (the lock ended with the old subscription, and a
   * later subscription is priced at the prices then offered). A person whose earlier accounts
   * never paid is a first-time subscriber.
   */
  subscribedBefore: boolean;
  /** The money-back refund the person already used (once per person): with which account, when. */
  moneyBack?: { slug: string | null; grantedAt: string };
}

/** What the new account carries, from the old one and what the old one itself carried. */
export const carriedFacts = (old: {
  tenantId: string;
  slug: string | null;
  /** Did the old account ever pay (was it ever past `provisioning`)? */
  leftBy?: string | undefined;
  firstPaidAt?: string | undefined;
  moneyBack?: { grantedAt?: string | undefined } | undefined;
  returning?: CarriedFacts | undefined;
}): CarriedFacts => {
  // Only a provisioning account is closed by its administrator: every other way out of the
  // lifecycle passed through `active`, i.e. a paid subscription.
  const paid =
    old.firstPaidAt !== undefined || (old.leftBy !== undefined && old.leftBy !== 'closed_by_tenant');
  const grantedAt = old.moneyBack?.grantedAt;
  const moneyBack = grantedAt ? { slug: old.slug, grantedAt } : old.returning?.moneyBack;
  return {
    previousTenantId: old.tenantId,
    previousSlug: old.slug,
    subscribedBefore: paid || old.returning?.subscribedBefore === true,
    ...(moneyBack ? { moneyBack } : {}),
  };
};
