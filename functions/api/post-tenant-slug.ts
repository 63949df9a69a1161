import * as v from 'valibot';
import { slugLockIntent, slugProblem, stackName } from '#core/slug.ts';
import { HttpError } from '#http/errors.ts';
import { httpHandler } from '#http/handler.ts';
import { requireTenant } from '#http/tenant.ts';
import { config } from '#ports/config.ts';
import { lockSlug } from '#store/tenants.ts';

const answer = (slug: string) => ({
  status: 200,
  body: { slug, stackName: stackName(slug, config.stackDomain()) },
});

const lockedOther = (current: string) =>
  new HttpError(
    409,
    'slug_locked',
    `This tenant's slug is "${current}" and is permanent; it cannot be changed.`,
    {
      extra: { slug: current },
    },
  );

/**
 * POST /v1/tenant/slug: locks the tenant's slug, once and forever. The same slug again is an
 * idempotent 200; another one is 409 `slug_locked`; a slug another tenant holds is 409 `slug_taken`.
 */
export const handler = httpHandler(
  { auth: 'session', role: 'administrator', body: v.strictObject({ slug: v.string() }) },
  async ({ principal, body, now }) => {
    const problem = slugProblem(body.slug);
    if (problem) throw new HttpError(400, problem.code, problem.message, { field: 'slug' });

    const tenant = await requireTenant(principal.tenantId);
    const intent = slugLockIntent(tenant.slug, body.slug);
    if (intent === 'already_locked_same') return answer(body.slug);
    if (intent === 'locked_other' && tenant.slug !== null) throw lockedOther(tenant.slug);

    if (await lockSlug(tenant.tenantId, body.slug, now)) return answer(body.slug);
    // A condition failed: either this tenant locked a slug meanwhile, or the slug is another's.
    const current = (await requireTenant(principal.tenantId)).slug;
    if (current === body.slug) return answer(body.slug);
    if (current !== null) throw lockedOther(current);
    throw new HttpError(
      409,
      'slug_taken',
      `The slug "${body.slug}" belongs to another tenant; choose another.`,
    );
  },
);
