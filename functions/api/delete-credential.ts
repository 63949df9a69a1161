import { httpHandler } from '#http/handler.ts';
import { deleteCredential } from '../credentials/delete.ts';
import { requireTenant } from '../lookups/index.ts';

/** DELETE /v1/credentials/{name}[?stackId=][&confirmationToken=]: deletes a Credential (administrators). */
export const handler = httpHandler(
  { auth: 'session', role: 'administrator' },
  async ({ principal, pathParameters, query, now }) => ({
    status: 200,
    body: await deleteCredential({
      tenant: await requireTenant(principal.tenantId),
      stackId: query.stackId,
      name: pathParameters.name ?? '',
      confirmationToken: query.confirmationToken,
      now,
    }),
  }),
);
