import * as v from 'valibot';
import { DEFAULT_PLAN, PLAN_VALUES } from '#core/plans.ts';
import { httpHandler } from '#http/handler.ts';
import { recordCheckout, recordCheckoutRefusal } from '#ports/metrics.ts';
import { startCheckout } from '../billing/checkout.ts';
import { requireTenant } from '../lookups/index.ts';

/**
 * POST /v1/billing/checkout: the hosted Checkout for a tenant's first subscription
 * (functions/billing/checkout.ts).
 */
export const handler = httpHandler(
  {
    auth: 'session',
    role: 'administrator',
    body: v.strictObject({ plan: v.optional(v.picklist(PLAN_VALUES), DEFAULT_PLAN) }),
  },
  async ({ principal, body, now }) => {
    const tenant = await requireTenant(principal.tenantId);
    const { url } = await startCheckout({ tenant, userId: principal.userId, plan: body.plan, now }).catch(
      (error: unknown) => {
        recordCheckoutRefusal(error);
        throw error;
      },
    );
    recordCheckout('created');
    return { status: 200, body: { url } };
  },
);
