import { isMetered, unusableReason } from '#core/credentials.ts';
import { FIRST_STACK_ID } from '#core/stacks.ts';
import { guideClearedReason, validationFailureText } from '#core/tenant-reasons.ts';
import type { GuideSelection, StoredCredential } from '#store/credentials.ts';
import type { StoredStack } from '#store/stacks.ts';
import { requireStack } from '../lookups/index.ts';

/** The Stack a Credential route acts on: `?stackId=`, else the tenant's first Stack. */
export const credentialStack = (tenantId: string, stackId: string | undefined): Promise<StoredStack> =>
  requireStack(tenantId, stackId || FIRST_STACK_ID);

/**
 * What a tenant sees of a Credential: name, Provider, kind, whether its usage is metered (an API
 * key, charged by the provider on top of the flat fee) or spends a personal subscription, the
 * Runtime Profile, validation, consent, times, and whether it can be used now. Never its material,
 * nor the Dispatcher's words about an invalid verdict (our code and its text instead).
 */
export const credentialView = (credential: StoredCredential, billingState: string) => {
  const unusable = unusableReason({
    archived: credential.archivedAt !== undefined,
    validation: credential.validation.state,
    billingState,
  });
  // A verdict stored before the codes has none: an invalid one is the provider's refusal.
  const reasonCode =
    credential.validation.state === 'invalid'
      ? (credential.validation.reasonCode ?? 'provider_refused')
      : null;
  return {
    name: credential.name,
    provider: credential.provider,
    kind: credential.kind,
    usage: isMetered(credential.kind) ? 'metered' : 'personal_subscription',
    runtimeProfile: credential.profile,
    validation: {
      state: credential.validation.state,
      reasonCode,
      reason: reasonCode === null ? null : validationFailureText(reasonCode),
      checkedAt: credential.validation.checkedAt ?? null,
    },
    usable: unusable === undefined,
    unusableReason: unusable ?? null,
    consent: credential.consent
      ? {
          by: credential.consent.login,
          at: credential.consent.at,
          textVersion: credential.consent.textVersion,
        }
      : null,
    createdAt: credential.createdAt,
    rotatedAt: credential.rotatedAt ?? null,
    archivedAt: credential.archivedAt ?? null,
  };
};

export const guideView = (
  selection: GuideSelection,
  credentials: StoredCredential[],
  billingState: string,
) => {
  const selected = selection.name ? credentials.find((c) => c.name === selection.name) : undefined;
  const unusable = selected
    ? unusableReason({
        archived: selected.archivedAt !== undefined,
        validation: selected.validation.state,
        billingState,
      })
    : undefined;
  return {
    name: selected?.name ?? null,
    selectedAt: selected ? (selection.selectedAt ?? null) : null,
    usable: selected !== undefined && unusable === undefined,
    unusableReason: unusable ?? null,
    cleared: selection.cleared
      ? { ...selection.cleared, reason: guideClearedReason(selection.cleared.reason) }
      : null,
  };
};
