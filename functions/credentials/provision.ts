import {
  authFileProblem,
  CREDENTIAL_NAME,
  CREDENTIAL_NAME_RULE,
  type CredentialKind,
  materialContext,
  type Provider,
  provisionRefusal,
  RESERVED_CREDENTIAL_NAMES,
  type RuntimeProfile,
} from '#core/credentials.ts';
import { Refusal } from '#core/refusal.ts';
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
  if (!CREDENTIAL_NAME.test(name))
    throw new Refusal('invalid', 'invalid_credential_name', `A Credential name is ${CREDENTIAL_NAME_RULE}.`, {
      field: 'name',
    });
};

const refusalOf = (
  refusal: NonNullable<ReturnType<typeof provisionRefusal>>,
  provider: Provider,
  kind: CredentialKind,
): Refusal => {
  const providerName = PROVIDER_CATALOG[provider].name;
  switch (refusal.code) {
    case 'kind_not_accepted':
      return new Refusal(
        'invalid',
        'kind_not_accepted',
        `${providerName} accepts ${refusal.accepted.join(', ')}; "${kind}" is not one of them.`,
        { field: 'kind', extra: { accepted: refusal.accepted } },
      );
    case 'consent_required':
      return new Refusal(
        'invalid',
        'consent_required',
        `A ${kind} Credential spends your personal subscription with the provider: send the administrator's consent as consent: { "textVersion": "<the version of the consent text shown> " }.`,
        { field: 'consent' },
      );
    case 'consent_not_expected':
      return new Refusal(
        'invalid',
        'consent_not_expected',
        'An api_key needs no consent (its usage is metered by the provider): leave consent out.',
        { field: 'consent' },
      );
    case 'consent_version_unknown':
      return new Refusal(
        'invalid',
        'consent_version_unknown',
        `The consent text is at version "${refusal.current}", not "${refusal.given}": show the current text (GET /v1/credentials/catalog) and send consent: { "textVersion": "${refusal.current}" }.`,
        { field: 'consent', extra: { currentTextVersion: refusal.current } },
      );
    case 'ambient_not_available':
      return new Refusal(
        'conflict',
        'ambient_not_available',
        "An ambient Credential uses the host's own runtime login, so it is available only on a Local Stack whose Dispatcher reports the host Executor. Use another kind on this Stack.",
      );
    case 'material_required':
      return new Refusal(
        'invalid',
        'material_required',
        `A ${kind} Credential needs its material: send it as "material".`,
        {
          field: 'material',
        },
      );
    case 'material_not_expected':
      return new Refusal(
        'invalid',
        'material_not_expected',
        'An ambient Credential stores no authentication value: leave "material" out.',
        { field: 'material' },
      );
    case 'provider_change':
      return new Refusal(
        'conflict',
        'provider_change',
        'A Credential keeps the Provider it was created with: choose a new name for a Credential of another Provider.',
      );
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
    throw new Refusal(
      'invalid',
      'invalid_credential_name',
      `"${name}" is a word the API keeps (GET /v1/credentials/${name}); choose another name.`,
      { field: 'name' },
    );
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
    if (problem)
      throw new Refusal('invalid', 'invalid_auth_file', `The auth file was refused: ${problem}.`, {
        field: 'material',
      });
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
  if (!written)
    throw new Refusal(
      'conflict',
      'credential_conflict',
      'This Credential changed meanwhile (another provisioning of the same name): read GET /v1/credentials, then try again.',
    );
  return { created: existing === undefined, view: credentialView(credential, tenant.billingState) };
};
