import { httpHandler } from '#http/handler.ts';
import { deleteProject } from '../stacks/projects.ts';

/** DELETE /v1/stacks/{stackId}/projects/{projectId}: frees a place under the cap (administrators). */
export const handler = httpHandler(
  { auth: 'session', role: 'administrator' },
  async ({ principal, pathParameters }) => {
    await deleteProject({
      tenantId: principal.tenantId,
      stackId: pathParameters.stackId ?? '',
      projectId: pathParameters.projectId ?? '',
    });
    return { status: 204 };
  },
);
