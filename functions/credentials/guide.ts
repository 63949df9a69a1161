import { unusableReason } from '#core/credentials.ts';
import { refuse } from '#core/refusals/index.ts';
import { clearGuide, getGuideSelection, listCredentials, selectGuide } from '#store/credentials.ts';
import type { Tenant } from '#store/tenants.ts';
import { requireCredential, requireStack } from '../lookups/index.ts';
import { guideView } from './views.ts';

/**
 * THE Guide selection: an administrator chooses the one Credential every Guide Session of the
 * Stack uses (not an archived one, nor one whose validation failed), or clears it (`null`).
 */
export const chooseGuideCredential = async (params: {
  tenant: Tenant;
  stackId: string;
  name: string | null;
  now: Date;
}) => {
  const { tenant, now } = params;
  const stack = await requireStack(tenant.tenantId, params.stackId);
  if (params.name === null) {
    const current = await getGuideSelection(tenant.tenantId, stack.stackId);
    if (current.name)
      await clearGuide(tenant.tenantId, stack.stackId, current.name, 'cleared_by_administrator', now);
  } else {
    const credential = await requireCredential(tenant.tenantId, stack.stackId, params.name);
    const unusable = unusableReason({
      archived: credential.archivedAt !== undefined,
      validation: credential.validation.state,
      billingState: tenant.billingState,
    });
    if (unusable === 'archived' || unusable === 'validation_failed')
      throw refuse(
        'credential_unusable',
        { name: credential.name, reason: unusable },
        { extra: { reason: unusable } },
      );
    await selectGuide(tenant.tenantId, stack.stackId, credential.name, now);
  }
  return guideView(
    await getGuideSelection(tenant.tenantId, stack.stackId),
    await listCredentials(tenant.tenantId, stack.stackId),
    tenant.billingState,
  );
};
