import * as v from 'valibot';
import { CREDENTIAL_NAME } from '#core/credentials.ts';
import { httpHandler } from '#http/handler.ts';
import { setProjectCredentialRoutes } from '../credentials/project-routes.ts';
import { requireTenant } from '../lookups/index.ts';

const name = v.pipe(v.string(), v.regex(CREDENTIAL_NAME, 'a Credential name'));
const route = v.strictObject({ primary: name, fallback: v.optional(name) });

/** PUT /v1/stacks/{stackId}/projects/{projectId}/credential-routes: a Project's Credential Routes (administrators). */
export const handler = httpHandler(
  {
    auth: 'session',
    role: 'administrator',
    body: v.strictObject({ intake: v.optional(route), dispatch: v.optional(route) }),
  },
  async ({ principal, pathParameters, body }) => ({
    status: 200,
    body: await setProjectCredentialRoutes({
      tenant: await requireTenant(principal.tenantId),
      stackId: pathParameters.stackId ?? '',
      projectId: pathParameters.projectId ?? '',
      routes: body,
    }),
  }),
);
