import { httpHandler } from '#http/handler.ts';
import { stackProjects } from '../stacks/projects.ts';

/** GET /v1/stacks/{stackId}/projects: the Stack's Projects and its cap (any member). */
export const handler = httpHandler({ auth: 'session' }, async ({ principal, pathParameters }) => ({
  status: 200,
  body: await stackProjects({ tenantId: principal.tenantId, stackId: pathParameters.stackId ?? '' }),
}));
