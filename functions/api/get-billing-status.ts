import { httpHandler } from '#http/handler.ts';
import { requireTenant } from '#http/tenant.ts';
import { listHistory } from '#store/history.ts';

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
    },
  };
});
