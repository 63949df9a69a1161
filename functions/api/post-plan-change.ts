import * as v from 'valibot';
import { PLAN_VALUES } from '#core/plans.ts';
import { httpHandler } from '#http/handler.ts';
import { idempotencyKeyOf } from '#http/validation.ts';
import { requireTenant } from '../lookups/index.ts';
import { confirmPlanChange } from '../plan-changes/confirm.ts';

/** POST /v1/stacks/{stackId}/plan-changes: confirms a Plan Change (administrators). Idempotency-Key optional. */
export const handler = httpHandler(
  { auth: 'session', role: 'administrator', body: v.strictObject({ plan: v.picklist(PLAN_VALUES) }) },
  async ({ principal, pathParameters, body, headers, now }) => {
    const tenant = await requireTenant(principal.tenantId);
    const change = await confirmPlanChange({
      tenant,
      userId: principal.userId,
      stackId: pathParameters.stackId ?? '',
      plan: body.plan,
      idempotencyKey: idempotencyKeyOf(headers),
      now,
    });
    return { status: 202, body: change };
  },
);
