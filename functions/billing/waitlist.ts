import { leavingRefusal } from '#core/leaving.ts';
import { isPlaceable } from '#core/placement.ts';
import type { PlanValue } from '#core/plans.ts';
import { listInventory } from '#store/capacity.ts';
import type { Tenant } from '#store/tenants.ts';
import { joinWaitlist as storeJoin } from '#store/waitlist.ts';

/**
 * THE waitlist use case: joins the waitlist for a Plan in the tenant's Home Region. Explicit and
 * idempotent per tenant and Plan; the capacity email is sent by the sweep once the Plan can be placed.
 */
export const joinWaitlist = async (params: {
  tenant: Tenant;
  userId: string;
  plan: PlanValue;
  now: Date;
}) => {
  const { tenant, plan, now } = params;
  const leaving = leavingRefusal(tenant);
  if (leaving) throw leaving;
  const { entry, created } = await storeJoin(
    { tenantId: tenant.tenantId, plan, region: tenant.homeRegion, joinedBy: params.userId },
    now,
  );
  const inventory = await listInventory(tenant.homeRegion);
  return {
    created,
    view: {
      plan: entry.plan,
      homeRegion: entry.region,
      joinedAt: entry.joinedAt,
      notified: entry.notifiedAt !== undefined,
      placeableNow: isPlaceable(inventory, tenant.homeRegion, plan, now),
    },
  };
};
