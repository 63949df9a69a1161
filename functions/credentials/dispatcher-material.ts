import { CREDENTIAL_NAME } from '#core/credentials.ts';
import { Refusal } from '#core/refusal.ts';
import { getCredential, type StoredCredential } from '#store/credentials.ts';
import { injectionOf } from './material.ts';

/**
 * A Credential of the calling Dispatcher's own Stack, by name: a name of another Stack (or of no
 * Stack) is simply not found, so material never reaches another Stack's Dispatcher.
 */
export const requireCredential = async (
  tenantId: string,
  stackId: string,
  name: string,
): Promise<StoredCredential> => {
  const stored = CREDENTIAL_NAME.test(name) ? await getCredential(tenantId, stackId, name) : undefined;
  if (!stored)
    throw new Refusal(
      404,
      'credential_not_found',
      `This Stack has no Credential "${name}": the desired state's "credentials" lists those to validate.`,
    );
  return stored;
};

/**
 * GET /v1/dispatcher/credentials/{name}: what the Stack's Dispatcher needs to check a Credential
 * with its provider (the control plane never calls a provider with a secret). `version` is the
 * material's version, to send back with the verdict.
 */
export const readCredentialForValidation = async (params: {
  tenantId: string;
  stackId: string;
  name: string;
}) => {
  const stored = await requireCredential(params.tenantId, params.stackId, params.name);
  return {
    name: stored.name,
    provider: stored.provider,
    kind: stored.kind,
    version: stored.materialVersion,
    inject: await injectionOf(params.tenantId, stored),
  };
};
