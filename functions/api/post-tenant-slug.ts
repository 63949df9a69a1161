import * as v from 'valibot';
import { httpHandler } from '#http/handler.ts';
import { requireTenant } from '#http/tenant.ts';
import { lockTenantSlug } from '../tenants/slug.ts';

/** POST /v1/tenant/slug: locks the tenant's slug, once and forever (functions/tenants/slug.ts). */
export const handler = httpHandler(
  { auth: 'session', role: 'administrator', body: v.strictObject({ slug: v.string() }) },
  async ({ principal, body, now }) => {
    const tenant = await requireTenant(principal.tenantId);
    return { status: 200, body: await lockTenantSlug({ tenant, slug: body.slug, now }) };
  },
);
