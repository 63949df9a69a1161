import { httpHandler } from '#http/handler.ts';
import { exportRequest, readExport } from '../exports/read.ts';

/** GET /v1/stacks/{stackId}/exports/{exportId}: an export's status (any member). */
export const handler = httpHandler({ auth: 'session' }, async ({ principal, pathParameters, now }) => ({
  status: 200,
  body: await readExport(exportRequest(principal.tenantId, pathParameters, now)),
}));
