import { type CredentialKind, materialContext, type Provider } from '#core/credentials.ts';
import { PROVIDER_CATALOG } from '#ports/config.ts';
import { openSecret } from '#ports/secrets-vault.ts';
import type { StoredCredential } from '#store/credentials.ts';

/**
 * What the runtime gets for a Credential (docs/credentials.md, "Kinds and Providers"): environment
 * variables, an auth file (its JSON text), or the host's own login (`ambient`). Built only for the
 * Stack's own Dispatcher, in the answer of the call that needs it; never stored, never logged.
 */
export interface Injection {
  env?: Record<string, string>;
  authFile?: string;
  ambient?: true;
}

/** What to inject for a Provider's kind, from the catalog in the configuration module. */
export const injectionFor = (
  provider: Provider,
  kind: CredentialKind,
  material: string | undefined,
): Injection => {
  const how = PROVIDER_CATALOG[provider].inject[kind];
  if (!how) throw new Error(`the Provider catalog has no injection for ${provider} ${kind}`);
  if (how.ambient) return { ambient: true };
  if (material === undefined) throw new Error(`a ${provider} ${kind} Credential has no material`);
  if (how.env) return { env: { [how.env]: material } };
  if (how.authFileField) return { authFile: JSON.stringify({ [how.authFileField]: material }) };
  if (how.authFile) return { authFile: material };
  throw new Error(`the Provider catalog's injection for ${provider} ${kind} names nothing to inject`);
};

/** Opens a stored Credential's material (undefined for `ambient`, which stores none). */
export const openMaterial = async (
  tenantId: string,
  stored: StoredCredential,
): Promise<string | undefined> =>
  stored.sealed === undefined
    ? undefined
    : openSecret(stored.sealed, materialContext(tenantId, stored.stackId, stored.name));

/** The injection for a stored Credential, its material opened for this one answer. */
export const injectionOf = async (tenantId: string, stored: StoredCredential): Promise<Injection> =>
  injectionFor(stored.provider, stored.kind, await openMaterial(tenantId, stored));
