import { httpHandler } from '#http/handler.ts';
import { archiveCredential } from '../credentials/archive.ts';
import { requireTenant } from '../lookups/index.ts';

/** POST /v1/credentials/{name}/archive[?stackId=]: kept, no longer usable (administrators). */
export const handler = httpHandler(
  { auth: 'session', role: 'administrator' },
  async ({ principal, pathParameters, query, now }) => ({
    status: 200,
    body: await archiveCredential({
      tenant: await requireTenant(principal.tenantId),
      stackId: query.stackId,
      name: pathParameters.name ?? '',
      now,
    }),
  }),
);
