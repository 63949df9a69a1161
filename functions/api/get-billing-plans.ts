import { isPlaceable } from '#core/placement.ts';
import { catalogAt } from '#core/price-lock.ts';
import { httpHandler } from '#http/handler.ts';
import { requireTenant } from '#http/tenant.ts';
import { config } from '#ports/config.ts';
import { listInventory } from '#store/capacity.ts';

/** GET /v1/billing/plans: the customer Plan catalog, with what can be placed now in the caller's Home Region. */
export const handler = httpHandler({ auth: 'session' }, async ({ principal, now }) => {
  const tenant = await requireTenant(principal.tenantId);
  const inventory = await listInventory(tenant.homeRegion);
  return {
    status: 200,
    body: {
      homeRegion: tenant.homeRegion,
      // Today's list prices (PLAN_PRICES, else the catalog's): what a new subscription or Stack pays.
      plans: catalogAt(config.planPrices()).map((plan) => ({
        ...plan,
        placeable: isPlaceable(inventory, tenant.homeRegion, plan.value, now),
      })),
    },
  };
});
