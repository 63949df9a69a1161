import { httpHandler } from '#http/handler.ts';
import { issueStackCredential } from '../stacks/dispatcher-credential.ts';

/** POST /v1/stacks/{stackId}/dispatcher-credential: issues (rotates) the Stack's Dispatcher credential (administrators). */
export const handler = httpHandler(
  { auth: 'session', role: 'administrator' },
  async ({ principal, pathParameters, now }) => ({
    status: 201,
    body: await issueStackCredential({
      tenantId: principal.tenantId,
      stackId: pathParameters.stackId ?? '',
      now,
    }),
  }),
);
