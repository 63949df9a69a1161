import * as v from 'valibot';
import { httpHandler } from '#http/handler.ts';
import { addProject } from '../stacks/projects.ts';

/** POST /v1/stacks/{stackId}/projects: registers a Project under the Watched-Projects cap (administrators). */
export const handler = httpHandler(
  {
    auth: 'session',
    role: 'administrator',
    body: v.strictObject({
      name: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(100)),
      repository: v.pipe(
        v.string(),
        v.regex(/^[A-Za-z0-9-]{1,39}\/[A-Za-z0-9._-]{1,100}$/, 'must be owner/name, as on the code host'),
      ),
    }),
  },
  async ({ principal, pathParameters, body, now }) => ({
    status: 201,
    body: await addProject({
      tenantId: principal.tenantId,
      stackId: pathParameters.stackId ?? '',
      ...body,
      now,
    }),
  }),
);
