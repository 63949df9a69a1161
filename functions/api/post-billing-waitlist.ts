import * as v from 'valibot';
import { isPlaceable } from '#core/placement.ts';
import { PLAN_VALUES } from '#core/plans.ts';
import { httpHandler } from '#http/handler.ts';
import { requireTenant } from '#http/tenant.ts';
import { listInventory } from '#store/capacity.ts';
import { joinWaitlist } from '#store/waitlist.ts';

/**
 * POST /v1/billing/waitlist: joins the waitlist for a Plan in the tenant's Home Region. Explicit
 * and idempotent per tenant and Plan; the capacity email is sent by the sweep once the Plan can
 * be placed.
 */
export const handler = httpHandler(
  { auth: 'session', role: 'administrator', body: v.strictObject({ plan: v.picklist(PLAN_VALUES) }) },
  async ({ principal, body, now }) => {
    const tenant = await requireTenant(principal.tenantId);
    const { entry, created } = await joinWaitlist(
      { tenantId: tenant.tenantId, plan: body.plan, region: tenant.homeRegion, joinedBy: principal.userId },
      now,
    );
    const inventory = await listInventory(tenant.homeRegion);
    return {
      status: created ? 201 : 200,
      body: {
        plan: entry.plan,
        homeRegion: entry.region,
        joinedAt: entry.joinedAt,
        notified: entry.notifiedAt !== undefined,
        placeableNow: isPlaceable(inventory, tenant.homeRegion, body.plan, now),
      },
    };
  },
);
