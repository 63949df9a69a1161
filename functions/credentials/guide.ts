import { unusableReason } from '#core/credentials.ts';
import { Refusal } from '#core/refusal.ts';
import { clearGuide, getGuideSelection, listCredentials, selectGuide } from '#store/credentials.ts';
import type { Tenant } from '#store/tenants.ts';
import { requireStack } from '../stacks/views.ts';
import { guideView, requireCredential } from './views.ts';

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
      throw new Refusal(
        'conflict',
        'credential_unusable',
        `"${credential.name}" cannot be the Guide Credential: it is ${unusable === 'archived' ? 'archived' : 'refused by its validation'}. Provision it again or choose another.`,
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
