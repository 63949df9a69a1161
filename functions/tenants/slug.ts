import { Refusal } from '#core/refusal.ts';
import { slugLockIntent, slugProblem, stackName } from '#core/slug.ts';
import { config } from '#ports/config.ts';
import { getTenant, lockSlug, type Tenant } from '#store/tenants.ts';

const answer = (slug: string) => ({ slug, stackName: stackName(slug, config.stackDomain()) });

const lockedOther = (current: string) =>
  new Refusal(
    409,
    'slug_locked',
    `This tenant's slug is "${current}" and is permanent; it cannot be changed.`,
    {
      extra: { slug: current },
    },
  );

/**
 * THE slug use case: locks the tenant's slug, once and forever. The same slug again is an
 * idempotent answer; another one is 409 `slug_locked`; a slug another tenant holds is 409 `slug_taken`.
 */
export const lockTenantSlug = async (params: { tenant: Tenant; slug: string; now: Date }) => {
  const { tenant, slug, now } = params;
  const problem = slugProblem(slug);
  if (problem) throw new Refusal(400, problem.code, problem.message, { field: 'slug' });
  const intent = slugLockIntent(tenant.slug, slug);
  if (intent === 'already_locked_same') return answer(slug);
  if (intent === 'locked_other' && tenant.slug !== null) throw lockedOther(tenant.slug);

  if (await lockSlug(tenant.tenantId, slug, now)) return answer(slug);
  // A condition failed: either this tenant locked a slug meanwhile, or the slug is another's.
  const current = (await getTenant(tenant.tenantId))?.slug ?? null;
  if (current === slug) return answer(slug);
  if (current !== null) throw lockedOther(current);
  throw new Refusal(409, 'slug_taken', `The slug "${slug}" belongs to another tenant; choose another.`);
};
