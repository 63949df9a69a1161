import * as v from 'valibot';
import { getItem } from './client.ts';
import { entity } from './entity.ts';

const CredentialSchema = v.object({
  tenantId: v.string(),
  stackId: v.string(),
  credentialId: v.string(),
  issuedAt: v.string(),
  /** Set when a newer credential replaced this one: it works until then. */
  retiresAt: v.optional(v.string()),
});
export type DispatcherCredential = v.InferOutput<typeof CredentialSchema>;

/** A Stack's Dispatcher credential, found by the SHA-256 of its secret (the secret is never stored). */
export const dispatcherCredential = entity({
  type: 'dispatcher_credential',
  key: (secretHash: string) => ({ PK: `DISPATCHER#${secretHash}`, SK: 'DISPATCHER' }),
  schema: CredentialSchema,
});

// Only the credential and its read: the session authorizer imports this module on every cold
// start, so it names no other entity (issuing one, a Stack write, is in stacks.ts).

/**
 * The Stack a Dispatcher credential (by the hash of its secret) belongs to, if any. Eventually
 * consistent (half the read units of every Dispatcher request the authorizer's cache misses): a
 * credential retired or issued less than a second ago may be read as it was, well inside the
 * authorizer's own 30 s cache and the hour a rotated credential keeps working.
 */
export const findDispatcherCredential = async (
  secretHash: string,
): Promise<DispatcherCredential | undefined> =>
  getItem(dispatcherCredential.key(secretHash), CredentialSchema, { consistent: false });
