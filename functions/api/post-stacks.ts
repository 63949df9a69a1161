import * as v from 'valibot';
import { PLAN_VALUES } from '#core/plans.ts';
import { httpHandler } from '#http/handler.ts';
import { idempotencyKeyOf } from '#http/validation.ts';
import { config } from '#ports/config.ts';
import { requireTenant } from '../lookups/index.ts';
import { addStack } from '../stacks/add-stack.ts';

/** POST /v1/stacks: adds a Stack on a Plan (administrators; functions/stacks/add-stack.ts). Idempotency-Key optional. */
export const handler = httpHandler(
  { auth: 'session', role: 'administrator', body: v.strictObject({ plan: v.picklist(PLAN_VALUES) }) },
  async ({ principal, body, headers, now }) => {
    const tenant = await requireTenant(principal.tenantId);
    const stack = await addStack({
      tenant,
      plan: body.plan,
      idempotencyKey: idempotencyKeyOf(headers),
      stackCap: config.stackCap(),
      now,
    });
    return { status: 201, body: stack };
  },
);
