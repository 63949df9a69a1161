import { refuse } from '#core/refusals/index.ts';
import { clearGuide, updateCredential } from '#store/credentials.ts';
import type { Tenant } from '#store/tenants.ts';
import { requireCredential } from '../lookups/index.ts';
import { credentialStack, credentialView } from './views.ts';

/** THE archive use case: the Credential is kept but no longer usable; a Guide selection naming it is cleared. */
export const archiveCredential = async (params: {
  tenant: Tenant;
  stackId: string | undefined;
  name: string;
  now: Date;
}) => {
  const stack = await credentialStack(params.tenant.tenantId, params.stackId);
  const credential = await requireCredential(params.tenant.tenantId, stack.stackId, params.name);
  let archived = credential;
  if (credential.archivedAt === undefined) {
    const at = params.now.toISOString();
    if (!(await updateCredential(params.tenant.tenantId, credential, { archivedAt: at })))
      throw refuse('credential_conflict');
    archived = { ...credential, archivedAt: at, version: credential.version + 1 };
  }
  await clearGuide(params.tenant.tenantId, stack.stackId, params.name, 'archived', params.now);
  return credentialView(archived, params.tenant.billingState);
};
