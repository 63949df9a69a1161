import { httpHandler } from '#http/handler.ts';
import { requireStack } from '../lookups/index.ts';
import { stackView } from '../stacks/views.ts';

/** GET /v1/stacks/{stackId}: one Stack of the tenant (any member). */
export const handler = httpHandler({ auth: 'session' }, async ({ principal, pathParameters }) => ({
  status: 200,
  body: stackView(await requireStack(principal.tenantId, pathParameters.stackId ?? '')),
}));
