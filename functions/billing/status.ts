import { listHistory } from '#store/history.ts';
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
 * THE billing status view: the state, the end of a running grace, the history of transitions
 * (time, from, to, reason), and while leaving, the close-out. No processor ids.
 */
export const billingStatus = async (tenant: Tenant) => {
  const history = await listHistory(tenant.tenantId);
  return {
    billingState: tenant.billingState,
    graceDeadline:
      tenant.billingState === 'past-due' || tenant.billingState === 'suspended' ? tenant.graceDeadline : null,
    history: history.map((entry) => ({ at: entry.at, from: entry.from, to: entry.to, reason: entry.reason })),
    ...(tenant.billingState === 'decommissioning' ? { closing: closingView(tenant) } : {}),
  };
};
