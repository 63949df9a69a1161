import * as v from 'valibot';
import { PLAN_VALUES } from '#core/plans.ts';
import { httpHandler } from '#http/handler.ts';
import { requireTenant } from '../lookups/index.ts';
import { previewPlanChange } from '../plan-changes/preview.ts';

/** POST /v1/stacks/{stackId}/plan-changes/preview: both Plans and the processor's estimate (administrators). */
export const handler = httpHandler(
  { auth: 'session', role: 'administrator', body: v.strictObject({ plan: v.picklist(PLAN_VALUES) }) },
  async ({ principal, pathParameters, body, now }) => {
    const tenant = await requireTenant(principal.tenantId);
    return {
      status: 200,
      body: await previewPlanChange({ tenant, stackId: pathParameters.stackId ?? '', plan: body.plan, now }),
    };
  },
);
