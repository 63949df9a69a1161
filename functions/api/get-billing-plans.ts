import { isPlaceable } from '#core/placement.ts';
import { planCatalog } from '#core/plans.ts';
import { httpHandler } from '#http/handler.ts';
import { requireTenant } from '#http/tenant.ts';
import { listCapacity } from '#store/capacity.ts';

/** GET /v1/billing/plans: the customer Plan catalog, with what can be placed now in the caller's Home Region. */
export const handler = httpHandler({ auth: 'session' }, async ({ principal }) => {
  const tenant = await requireTenant(principal.tenantId);
  const slots = await listCapacity(tenant.homeRegion);
  return {
    status: 200,
    body: {
      homeRegion: tenant.homeRegion,
      plans: planCatalog().map((plan) => ({
        ...plan,
        placeable: isPlaceable(slots, tenant.homeRegion, plan.value),
      })),
    },
  };
});
