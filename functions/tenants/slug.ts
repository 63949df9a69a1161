import { randomUUID } from 'node:crypto';
import { refuse } from '#core/refusals/index.ts';
import { carriedFacts, newAccountOpening, newAccountText } from '#core/returning.ts';
import type { Role } from '#core/sessions.ts';
import { slugLockIntent, slugProblem, stackName } from '#core/slug.ts';
import { config } from '#ports/config.ts';
import { startNewAccount } from '#store/new-account.ts';
import { getTenant, lockSlug, type Tenant, tenantIdOfSlug } from '#store/tenants.ts';
import { getUser } from '#store/users.ts';

const answer = (slug: string, extra: { newAccount?: true } = {}) => ({
  slug,
  stackName: stackName(slug, config.stackDomain()),
  ...extra,
});

const lockedOther = (current: string) => refuse('slug_locked', { current }, { extra: { slug: current } });

const taken = (slug: string) => refuse('slug_taken', { slug, former: false });

const adminRequired = () => refuse('admin_required');

/**
 * THE slug use case: locks the tenant's slug, once and forever. The same slug again is an
 * idempotent answer; another one is 409 `slug_locked`; a slug another tenant holds is 409 `slug_taken`.
 * On an account that has left, the same call starts the person's new account (`newAccount`).
 */
export const lockTenantSlug = async (params: {
  tenant: Tenant;
  slug: string;
  now: Date;
  /** The caller: whose new account it would be, and with which session (moved along). */
  caller?: { userId: string; role: Role; sessionTokenHash: string | undefined };
}) => {
  const { tenant, slug, now } = params;
  const opening = params.caller ? newAccountOpening(tenant) : undefined;
  if (!opening && params.caller && params.caller.role !== 'administrator') throw adminRequired();
  const problem = slugProblem(slug);
  if (problem) throw refuse(problem.code, { slug });
  if (opening && params.caller) return startReturningAccount({ ...params, caller: params.caller, opening });
  const intent = slugLockIntent(tenant.slug, slug);
  if (intent === 'already_locked_same') return answer(slug);
  if (intent === 'locked_other' && tenant.slug !== null) throw lockedOther(tenant.slug);

  if (await lockSlug(tenant.tenantId, slug, now)) return answer(slug);
  // A condition failed: either this tenant locked a slug meanwhile, or the slug is another's.
  const current = (await getTenant(tenant.tenantId))?.slug ?? null;
  if (current === slug) return answer(slug);
  if (current !== null) throw lockedOther(current);
  throw taken(slug);
};

/**
 * A returning customer's new account (core/returning.ts): possible once the left account is torn
 * down (before that, 409 `new_account_not_yet` with the date); the old slug stays with the old
 * account. One transaction (store/new-account.ts `startNewAccount`); a retry of the same request, or one
 * that lost a race to it with the same slug, is answered as the success it was.
 */
const startReturningAccount = async (params: {
  tenant: Tenant;
  slug: string;
  now: Date;
  caller: { userId: string; sessionTokenHash: string | undefined };
  opening: NonNullable<ReturnType<typeof newAccountOpening>>;
}) => {
  const { tenant, slug, now, caller, opening } = params;
  if (!opening.possible)
    throw refuse(
      'new_account_not_yet',
      { text: newAccountText(tenant, opening) },
      { extra: { newAccountFrom: opening.from } },
    );
  const holder = await tenantIdOfSlug(slug);
  if (holder === tenant.tenantId) throw refuse('slug_taken', { slug, former: true });
  const settled = async () => {
    // Already started (a retry, or the winner of a race): the same slug is the same success.
    const user = await getUser(caller.userId);
    if (!user || user.tenantId === tenant.tenantId) return undefined;
    const current = await getTenant(user.tenantId);
    if (current?.slug === slug) return answer(slug, { newAccount: true });
    throw refuse('new_account_exists', { current: current?.slug ?? null });
  };
  const before = await settled();
  if (before) return before;
  if (holder !== undefined) throw taken(slug);
  const started = await startNewAccount({
    userId: caller.userId,
    oldTenantId: tenant.tenantId,
    newTenantId: randomUUID(),
    slug,
    carried: { ...carriedFacts(tenant) },
    sessionTokenHash: caller.sessionTokenHash,
    now,
  });
  if (started) return answer(slug, { newAccount: true });
  const after = await settled();
  if (after) return after;
  throw taken(slug);
};
