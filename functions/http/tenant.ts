import { getTenant, type Tenant } from '#store/tenants.ts';
import { HttpError } from './errors.ts';

/** The caller's tenant (from the authorizer's tenant id, never from the request). */
export const requireTenant = async (tenantId: string): Promise<Tenant> => {
  const tenant = await getTenant(tenantId);
  if (!tenant) throw new HttpError(404, 'tenant_not_found', 'The tenant of this session no longer exists.');
  return tenant;
};
