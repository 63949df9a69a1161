import * as v from 'valibot';
import { PLAN_VALUES } from '#core/plans.ts';
import { httpHandler } from '#http/handler.ts';
import { config } from '#ports/config.ts';
import { requireTenant } from '../lookups/index.ts';
import { previewAddStack } from '../stacks/add-stack.ts';

/** POST /v1/stacks/preview: what adding a Stack would cost, before confirming (administrators). */
export const handler = httpHandler(
  { auth: 'session', role: 'administrator', body: v.strictObject({ plan: v.picklist(PLAN_VALUES) }) },
  async ({ principal, body, now }) => {
    const tenant = await requireTenant(principal.tenantId);
    return {
      status: 200,
      body: await previewAddStack({ tenant, plan: body.plan, stackCap: config.stackCap(), now }),
    };
  },
);
