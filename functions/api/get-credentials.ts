import { httpHandler } from '#http/handler.ts';
import { listStackCredentials } from '../credentials/list.ts';
import { requireTenant } from '../lookups/index.ts';

/** GET /v1/credentials[?stackId=] (and the specification's GET /credentials): a Stack's Credentials and its Guide selection (any member). */
export const handler = httpHandler({ auth: 'session' }, async ({ principal, query }) => ({
  status: 200,
  body: await listStackCredentials({
    tenant: await requireTenant(principal.tenantId),
    stackId: query.stackId,
  }),
}));
