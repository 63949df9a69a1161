import { placeablePlansFor } from '#core/placement.ts';
import { catalogAt } from '#core/price-lock.ts';
import { config } from '#ports/config.ts';
import { listInventory } from '#store/capacity.ts';
import type { Tenant } from '#store/tenants.ts';

/**
 * The customer Plan catalog a tenant reads: today's list prices (PLAN_PRICES, else the catalog's),
 * what a new subscription or Stack pays, and whether each Plan can be placed now in its Home
 * Region, counted as its checkout counts (placeablePlansFor: its own reservation is its own place).
 */
export const planCatalog = async (tenant: Tenant, now: Date) => {
  const inventory = await listInventory(tenant.homeRegion);
  const placeable = placeablePlansFor(inventory, tenant.tenantId, tenant.homeRegion, now);
  return {
    homeRegion: tenant.homeRegion,
    plans: catalogAt(config.planPrices()).map((plan) => ({
      ...plan,
      placeable: placeable.includes(plan.value),
    })),
  };
};
