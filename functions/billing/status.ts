import { MONEY_BACK_REMINDER, moneyBackWindow } from '#core/money-back.ts';
import { priceLockSummary } from '#core/price-lock.ts';
import { clock } from '#ports/clock.ts';
import { config } from '#ports/config.ts';
import { listHistory } from '#store/history.ts';
import { listStacks } from '#store/stacks.ts';
import type { Tenant } from '#store/tenants.ts';

/** What a leaving tenant is told: why, until when its Stacks serve, and what it may still do. */
const closingView = (tenant: Tenant) => ({
  reason: tenant.leftBy ?? null,
  /** When the Stacks are torn down: the end of the paid period after a portal cancel. */
  teardownAt: tenant.teardownAt ?? null,
  stacksServeUntilTeardown: tenant.leftBy === 'cancelled_in_portal',
  billingStopped: tenant.billingStoppedAt !== undefined,
  tornDown: tenant.tornDownAt !== undefined,
  youCanStill: 'Read this status and export your data until teardown. Nothing new can be bought or changed.',
});

/**
 * The money-back refund as the tenant sees it: where to write, until when (the window's end is
 * known once the sweep has recorded the first paid invoice above zero), whether it can still be
 * asked for, the grant once made, and the reminder to export first.
 */
const moneyBackView = (tenant: Tenant, now: Date) => {
  const windowEndsAt = tenant.firstPaidAt ? moneyBackWindow(tenant.firstPaidAt).until : null;
  const granted = tenant.moneyBack?.grantedAt ? tenant.moneyBack : undefined;
  const earlier = tenant.returning?.moneyBack;
  return {
    supportEmail: config.supportEmail(),
    windowEndsAt,
    // Only an active account is refunded, once per person (an earlier account's grant counts).
    available:
      tenant.moneyBack === undefined &&
      earlier === undefined &&
      tenant.billingState === 'active' &&
      windowEndsAt !== null &&
      now.getTime() <= Date.parse(windowEndsAt),
    used: granted
      ? {
          requestedAt: granted.requestedAt,
          grantedAt: granted.grantedAt ?? null,
          refundedAmount: granted.refundedAmount ?? 0,
          refunds: granted.refunds ?? 0,
          currency: granted.currency ?? 'usd',
        }
      : null,
    /** The refund was used with the person's earlier account: a new account has none. */
    usedByEarlierAccount: earlier ? { slug: earlier.slug, grantedAt: earlier.grantedAt } : null,
    reminder: MONEY_BACK_REMINDER,
  };
};

/**
 * THE billing status view: the state, the end of a running grace, the history of transitions
 * (time, from, to, reason), while leaving the close-out, and the money-back refund. No processor ids.
 */
export const billingStatus = async (tenant: Tenant, now: Date = clock().now()) => {
  const [history, stacks] = await Promise.all([listHistory(tenant.tenantId), listStacks(tenant.tenantId)]);
  return {
    billingState: tenant.billingState,
    graceDeadline:
      tenant.billingState === 'past-due' || tenant.billingState === 'suspended' ? tenant.graceDeadline : null,
    history: history.map((entry) => ({ at: entry.at, from: entry.from, to: entry.to, reason: entry.reason })),
    ...(tenant.billingState === 'decommissioning' ? { closing: closingView(tenant) } : {}),
    moneyBack: moneyBackView(tenant, now),
    // The Founding Price Lock: founding or not, Stacks keeping their price, and the locks that ended.
    priceLock: priceLockSummary(stacks),
  };
};
