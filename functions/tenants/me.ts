import { refuse } from '#core/refusals/index.ts';
import type { Tenant } from '#store/tenants.ts';
import { getUser } from '#store/users.ts';
import { tenantWaitlist } from '#store/waitlist.ts';
import { accountsView } from './accounts.ts';

/**
 * What `GET /v1/me` says of the signed-in person besides the tenant: the user, the Plans the
 * tenant waits for, and (a returning customer) the accounts. The tenant is read alongside (`tenantRead`,
 * the handler's read of the session's tenant), not after.
 */
export const meView = async (userId: string, tenantId: string, tenantRead: Promise<Tenant>) => {
  const [user, tenant, waitlist] = await Promise.all([getUser(userId), tenantRead, tenantWaitlist(tenantId)]);
  if (!user) throw refuse('user_not_found');
  return { user, tenant, waitlist, accounts: await accountsView(user, tenant) };
};
