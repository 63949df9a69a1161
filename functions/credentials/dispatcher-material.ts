import type { StoredCredential } from '#store/credentials.ts';
import { requireCredential } from '../lookups/index.ts';
import { injectionOf } from './material.ts';

/** A Credential of the calling Dispatcher's own Stack, by name (another Stack's is not found). */
export const requireStackCredential = (
  tenantId: string,
  stackId: string,
  name: string,
): Promise<StoredCredential> =>
  requireCredential(tenantId, stackId, name, `the desired state's "credentials" lists those to validate`);

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
  const stored = await requireStackCredential(params.tenantId, params.stackId, params.name);
  return {
    name: stored.name,
    provider: stored.provider,
    kind: stored.kind,
    version: stored.materialVersion,
    inject: await injectionOf(params.tenantId, stored),
  };
};
