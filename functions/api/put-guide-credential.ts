import * as v from 'valibot';
import { CREDENTIAL_NAME } from '#core/credentials.ts';
import { httpHandler } from '#http/handler.ts';
import { chooseGuideCredential } from '../credentials/guide.ts';
import { requireTenant } from '../lookups/index.ts';

/** PUT /v1/stacks/{stackId}/guide-credential {name | null}: selects or clears the Guide Credential (administrators). */
export const handler = httpHandler(
  {
    auth: 'session',
    role: 'administrator',
    body: v.strictObject({
      name: v.nullable(v.pipe(v.string(), v.regex(CREDENTIAL_NAME, 'a Credential name'))),
    }),
  },
  async ({ principal, pathParameters, body, now }) => ({
    status: 200,
    body: await chooseGuideCredential({
      tenant: await requireTenant(principal.tenantId),
      stackId: pathParameters.stackId ?? '',
      name: body.name,
      now,
    }),
  }),
);
