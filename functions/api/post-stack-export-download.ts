import { httpHandler } from '#http/handler.ts';
import { downloadExport } from '../exports/download.ts';
import { exportRequest } from '../exports/read.ts';

/**
 * POST /v1/stacks/{stackId}/exports/{exportId}/download: a short-lived signed URL for a ready
 * archive (administrators), on the console's own site.
 */
export const handler = httpHandler(
  { auth: 'session', role: 'administrator' },
  async ({ principal, pathParameters, now }) => ({
    status: 200,
    body: await downloadExport(exportRequest(principal.tenantId, pathParameters, now)),
    headers: { 'cache-control': 'no-store' },
  }),
);
