import { Refusal } from '#core/refusal.ts';
import { getTenant, type Tenant } from '#store/tenants.ts';

/** The caller's tenant (from the authorizer's tenant id, never from the request). */
export const requireTenant = async (tenantId: string): Promise<Tenant> => {
  const tenant = await getTenant(tenantId);
  if (!tenant)
    throw new Refusal('not_found', 'tenant_not_found', 'The tenant of this session no longer exists.');
  return tenant;
};
