import { httpHandler } from '#http/handler.ts';
import { requestExport } from '../exports/start.ts';

/** POST /v1/stacks/{stackId}/exports: starts an export archive of the Stack (administrators). */
export const handler = httpHandler(
  { auth: 'session', role: 'administrator' },
  async ({ principal, pathParameters, now }) => ({
    status: 202,
    body: await requestExport({
      tenantId: principal.tenantId,
      stackId: pathParameters.stackId ?? '',
      userId: principal.userId,
      now,
    }),
  }),
);
