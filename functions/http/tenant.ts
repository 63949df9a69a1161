import { refuse } from '#core/refusals/index.ts';
import { getTenant, type Tenant } from '#store/tenants.ts';

/** The caller's tenant (from the authorizer's tenant id, never from the request). */
export const requireTenant = async (tenantId: string): Promise<Tenant> => {
  const tenant = await getTenant(tenantId);
  if (!tenant) throw refuse('tenant_not_found', {});
  return tenant;
};
