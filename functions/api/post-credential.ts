import * as v from 'valibot';
import {
  ACTIVITIES,
  CREDENTIAL_BODY_MAX_BYTES,
  CREDENTIAL_KINDS,
  CREDENTIAL_MATERIAL_MAX_CHARS,
  EFFORTS,
  PROVIDERS,
} from '#core/credentials.ts';
import { httpHandler } from '#http/handler.ts';
import { provisionCredential } from '../credentials/provision.ts';
import { requireTenant } from '../lookups/index.ts';

const entry = v.strictObject({
  model: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(100))),
  effort: v.optional(v.picklist(EFFORTS)),
});

/**
 * POST /v1/credentials/{name}[?stackId=] (and the specification's POST /credentials/{name}):
 * provisions or rotates a Credential (administrators).
 */
export const handler = httpHandler(
  {
    auth: 'session',
    role: 'administrator',
    // The longest material rides JSON-escaped in the body (docs/api/openapi.json, x-max-body-bytes).
    maxBodyBytes: CREDENTIAL_BODY_MAX_BYTES,
    body: v.strictObject({
      provider: v.picklist(PROVIDERS),
      kind: v.picklist(CREDENTIAL_KINDS),
      material: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(CREDENTIAL_MATERIAL_MAX_CHARS))),
      consent: v.optional(
        v.strictObject({
          textVersion: v.pipe(v.string(), v.regex(/^[\w.-]{1,32}$/, 'a version such as 2026-11')),
        }),
      ),
      runtimeProfile: v.optional(
        v.strictObject(
          Object.fromEntries(ACTIVITIES.map((activity) => [activity, v.optional(entry)])) as Record<
            (typeof ACTIVITIES)[number],
            v.OptionalSchema<typeof entry, undefined>
          >,
        ),
      ),
    }),
  },
  async ({ principal, pathParameters, query, body, now }) => {
    const tenant = await requireTenant(principal.tenantId);
    const { created, view } = await provisionCredential({
      tenant,
      userId: principal.userId,
      stackId: query.stackId,
      name: pathParameters.name ?? '',
      request: body,
      now,
    });
    return { status: created ? 201 : 200, body: view };
  },
);
