import { refuse } from '#core/refusals/index.ts';
import { newAccountOpening, newAccountText } from '#core/returning.ts';
import { getTenant, type Tenant, tenantIdOfSlug } from '#store/tenants.ts';
import { getMembership, type User } from '#store/users.ts';
import { requireTenant } from '../lookups/index.ts';

/**
 * A returning customer's accounts as `GET /v1/me` tells them: whether (and from when) a new
 * account can be started, and the person's former accounts (each readable for its billing).
 */
export const accountsView = async (user: User, tenant: Tenant) => {
  const opening = newAccountOpening(tenant);
  const former = await Promise.all((user.formerTenantIds ?? []).map((tenantId) => getTenant(tenantId)));
  return {
    newAccount: opening
      ? { possible: opening.possible, possibleFrom: opening.from, text: newAccountText(tenant, opening) }
      : null,
    formerAccounts: former
      .filter((old): old is Tenant => old !== undefined)
      .map((old) => ({
        slug: old.slug,
        leftBy: old.leftBy ?? null,
        closedAt: old.tornDownAt ?? null,
      })),
  };
};

/**
 * The tenant whose billing a read names: the caller's own, or with `account=<slug>` one of the
 * person's former accounts (a membership of theirs, kept as former). Anything else is 404, so a
 * slug of someone else's account tells nothing about it.
 */
export const readableTenant = async (
  principal: { tenantId: string; userId: string },
  account: string | undefined,
): Promise<Tenant> => {
  const notFound = () => refuse('account_not_found');
  const tenantId = account ? await tenantIdOfSlug(account.trim().toLowerCase()) : principal.tenantId;
  if (!tenantId) throw notFound();
  if (tenantId !== principal.tenantId && !(await getMembership(tenantId, principal.userId))) throw notFound();
  return requireTenant(tenantId);
};

/** The slug links name a read tenant by: a former account's (`?account=`), none for the caller's own. */
export const accountLinkSlug = (principal: { tenantId: string }, tenant: Tenant): string | undefined =>
  tenant.tenantId === principal.tenantId ? undefined : (tenant.slug ?? undefined);
