import * as v from 'valibot';
import { PLAN_VALUES } from '#core/plans.ts';
import { Refusal } from '#core/refusal.ts';
import { httpHandler } from '#http/handler.ts';
import { requireTenant } from '#http/tenant.ts';
import { config } from '#ports/config.ts';
import { addStack } from '../stacks/add-stack.ts';

/** POST /v1/stacks: adds a Stack on a Plan (administrators; functions/stacks/add-stack.ts). Idempotency-Key optional. */
export const handler = httpHandler(
  { auth: 'session', role: 'administrator', body: v.strictObject({ plan: v.picklist(PLAN_VALUES) }) },
  async ({ principal, body, headers, now }) => {
    const tenant = await requireTenant(principal.tenantId);
    const idempotencyKey = headers['idempotency-key'];
    if (idempotencyKey !== undefined && !/^[\x21-\x7e]{1,255}$/.test(idempotencyKey)) {
      throw new Refusal(
        400,
        'invalid_idempotency_key',
        'Idempotency-Key must be 1 to 255 visible ASCII characters.',
        {
          field: 'Idempotency-Key',
        },
      );
    }
    const stack = await addStack({
      tenant,
      plan: body.plan,
      idempotencyKey,
      stackCap: config.stackCap(),
      now,
    });
    return { status: 201, body: stack };
  },
);
