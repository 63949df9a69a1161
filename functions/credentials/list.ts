import { getGuideSelection, listCredentials } from '#store/credentials.ts';
import type { Tenant } from '#store/tenants.ts';
import { credentialStack, credentialView, guideView } from './views.ts';

/** THE Credentials list of a Stack (any member): every Credential (never material) and the Guide selection. */
export const listStackCredentials = async (params: { tenant: Tenant; stackId: string | undefined }) => {
  const stack = await credentialStack(params.tenant.tenantId, params.stackId);
  const [credentials, guide] = await Promise.all([
    listCredentials(params.tenant.tenantId, stack.stackId),
    getGuideSelection(params.tenant.tenantId, stack.stackId),
  ]);
  return {
    stackId: stack.stackId,
    credentials: credentials
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((credential) => credentialView(credential, params.tenant.billingState)),
    guide: guideView(guide, credentials, params.tenant.billingState),
  };
};
