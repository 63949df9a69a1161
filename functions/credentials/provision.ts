import {
  authFileProblem,
  CREDENTIAL_NAME,
  type CredentialKind,
  materialContext,
  type Provider,
  provisionRefusal,
  RESERVED_CREDENTIAL_NAMES,
  type RuntimeProfile,
} from '#core/credentials.ts';
import type { Refusal } from '#core/refusal.ts';
import { refuse } from '#core/refusals/index.ts';
import { PROVIDER_CATALOG } from '#ports/config.ts';
import { sealSecret } from '#ports/secrets-vault.ts';
import {
  credentialPutWrite,
  desiredStateBumpWrite,
  getCredential,
  type StoredCredential,
} from '#store/credentials.ts';
import type { Tenant } from '#store/tenants.ts';
import { applyStackWrites } from '#store/transact.ts';
import { getUser } from '#store/users.ts';
import { credentialStack, credentialView } from './views.ts';

export const requireCredentialName = (name: string): void => {
  if (!CREDENTIAL_NAME.test(name)) throw refuse('invalid_credential_name', {});
};

const refusalOf = (
  refusal: NonNullable<ReturnType<typeof provisionRefusal>>,
  provider: Provider,
  kind: CredentialKind,
): Refusal => {
  const providerName = PROVIDER_CATALOG[provider].name;
  switch (refusal.code) {
    case 'kind_not_accepted':
      return refuse(
        'kind_not_accepted',
        { providerName, accepted: refusal.accepted.join(', '), kind },
        { extra: { accepted: refusal.accepted } },
      );
    case 'consent_required':
      return refuse('consent_required', { kind });
    case 'consent_not_expected':
      return refuse('consent_not_expected');
    case 'consent_version_unknown':
      return refuse(
        'consent_version_unknown',
        { current: refusal.current, given: refusal.given },
        { extra: { currentTextVersion: refusal.current } },
      );
    case 'ambient_not_available':
      return refuse('ambient_not_available');
    case 'material_required':
      return refuse('material_required', { kind });
    case 'material_not_expected':
      return refuse('material_not_expected');
    case 'provider_change':
      return refuse('provider_change');
  }
};

/**
 * THE provision-or-rotate use case. A new name creates the Credential; an existing one rotates
 * its material (and may change its kind, never its Provider; an archived one comes back). The
 * kind must be one the Provider accepts; consent is recorded (who from the session, when from the
 * Clock, the text's version from the request, which must be the current one) exactly for the kinds
 * that need it; `ambient` only on a Local Stack with the host Executor, storing nothing. The
 * material is sealed with a KMS data key and never returned. The Stack's Dispatcher then validates it (the desired state lists it).
 */
export const provisionCredential = async (params: {
  tenant: Tenant;
  userId: string;
  stackId: string | undefined;
  name: string;
  request: {
    provider: Provider;
    kind: CredentialKind;
    material?: string | undefined;
    consent?: { textVersion: string } | undefined;
    runtimeProfile?: RuntimeProfile | undefined;
  };
  now: Date;
}): Promise<{ created: boolean; view: ReturnType<typeof credentialView> }> => {
  const { tenant, name, request, now } = params;
  requireCredentialName(name);
  const stack = await credentialStack(tenant.tenantId, params.stackId);
  if (stack.lifecycle === 'torn_down') throw refuse('stack_torn_down');
  const existing = await getCredential(tenant.tenantId, stack.stackId, name);
  if (!existing && RESERVED_CREDENTIAL_NAMES.includes(name))
    throw refuse('invalid_credential_name', { reserved: name });
  const refusal = provisionRefusal({
    provider: request.provider,
    kind: request.kind,
    consentGiven: request.consent !== undefined,
    consentTextVersion: request.consent?.textVersion,
    materialGiven: request.material !== undefined,
    localHostExecutor: stack.observed?.localHostExecutor ?? false,
    existingProvider: existing?.provider,
  });
  if (refusal) throw refusalOf(refusal, request.provider, request.kind);
  if (request.kind === 'auth_file' && request.material !== undefined) {
    const problem = authFileProblem(request.material);
    if (problem) throw refuse('invalid_auth_file', { problem });
  }
  const consent = request.consent
    ? {
        userId: params.userId,
        login: (await getUser(params.userId))?.login ?? 'unknown',
        at: now.toISOString(),
        textVersion: request.consent.textVersion,
      }
    : null;
  const sealed =
    request.material === undefined
      ? undefined
      : await sealSecret(request.material, materialContext(tenant.tenantId, stack.stackId, name));
  const credential: StoredCredential = {
    stackId: stack.stackId,
    name,
    provider: request.provider,
    kind: request.kind,
    profile: request.runtimeProfile ?? existing?.profile ?? {},
    consent,
    ...(sealed ? { sealed } : {}),
    materialVersion: (existing?.materialVersion ?? 0) + 1,
    validation: { state: 'pending' },
    createdAt: existing?.createdAt ?? now.toISOString(),
    ...(existing ? { rotatedAt: now.toISOString() } : {}),
    version: (existing?.version ?? 0) + 1,
  };
  const written = await applyStackWrites([
    credentialPutWrite(tenant.tenantId, credential, existing?.version),
    desiredStateBumpWrite(tenant.tenantId, stack.stackId),
  ]);
  if (!written) throw refuse('credential_conflict');
  return { created: existing === undefined, view: credentialView(credential, tenant.billingState) };
};
