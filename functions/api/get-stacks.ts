import { httpHandler } from '#http/handler.ts';
import { listStackViews } from '../stacks/views.ts';

/** GET /v1/stacks: every Stack of the tenant (any member; functions/stacks/views.ts). */
export const handler = httpHandler({ auth: 'session' }, async ({ principal }) => ({
  status: 200,
  body: { stacks: await listStackViews(principal.tenantId) },
}));
