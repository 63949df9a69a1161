import * as v from 'valibot';
import { PLAN_VALUES } from '#core/plans.ts';
import { httpHandler } from '#http/handler.ts';
import { joinWaitlist } from '../billing/waitlist.ts';
import { requireTenant } from '../lookups/index.ts';

/** POST /v1/billing/waitlist: joins the waitlist for a Plan (functions/billing/waitlist.ts). */
export const handler = httpHandler(
  { auth: 'session', role: 'administrator', body: v.strictObject({ plan: v.picklist(PLAN_VALUES) }) },
  async ({ principal, body, now }) => {
    const tenant = await requireTenant(principal.tenantId);
    const { created, view } = await joinWaitlist({ tenant, userId: principal.userId, plan: body.plan, now });
    return { status: created ? 201 : 200, body: view };
  },
);
