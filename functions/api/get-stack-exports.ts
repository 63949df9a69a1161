import { httpHandler } from '#http/handler.ts';
import { listExports } from '../exports/read.ts';

/** GET /v1/stacks/{stackId}/exports: a Stack's exports, newest first (any member). */
export const handler = httpHandler({ auth: 'session' }, async ({ principal, pathParameters, now }) => ({
  status: 200,
  body: await listExports({
    tenantId: principal.tenantId,
    stackId: pathParameters.stackId ?? '',
    now,
  }),
}));
