import { httpHandler } from '#http/handler.ts';
import { requireTenant } from '#http/tenant.ts';
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
 * GET /v1/billing/status: the tenant's billing state, the end of a running grace, and the history
 * of transitions (time, from, to, reason). No processor ids.
 */
export const handler = httpHandler({ auth: 'session' }, async ({ principal }) => {
  const [tenant, history] = await Promise.all([
    requireTenant(principal.tenantId),
    listHistory(principal.tenantId),
  ]);
  return {
    status: 200,
    body: {
      billingState: tenant.billingState,
      graceDeadline:
        tenant.billingState === 'past-due' || tenant.billingState === 'suspended'
          ? tenant.graceDeadline
          : null,
      history: history.map((entry) => ({
        at: entry.at,
        from: entry.from,
        to: entry.to,
        reason: entry.reason,
      })),
      ...(tenant.billingState === 'decommissioning' ? { closing: closingView(tenant) } : {}),
    },
  };
});
