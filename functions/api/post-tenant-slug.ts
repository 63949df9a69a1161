import * as v from 'valibot';
import { hashSessionToken } from '#core/session-token.ts';
import { httpHandler } from '#http/handler.ts';
import { findSessionToken } from '#http/session-token.ts';
import { requireTenant } from '../lookups/index.ts';
import { lockTenantSlug } from '../tenants/slug.ts';

/**
 * POST /v1/tenant/slug: locks the tenant's slug, once and forever; on an account that has left,
 * starts the person's new account with the slug (functions/tenants/slug.ts). The administrator
 * role is checked there: anyone whose account has left may start their own.
 */
export const handler = httpHandler(
  { auth: 'session', body: v.strictObject({ slug: v.string() }) },
  async ({ principal, body, now, headers, event }) => {
    const tenant = await requireTenant(principal.tenantId);
    const token = findSessionToken(headers, event.cookies);
    return {
      status: 200,
      body: await lockTenantSlug({
        tenant,
        slug: body.slug,
        now,
        caller: {
          userId: principal.userId,
          role: principal.role,
          sessionTokenHash: token ? hashSessionToken(token.token) : undefined,
        },
      }),
    };
  },
);
