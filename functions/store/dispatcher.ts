import * as v from 'valibot';
import { getItem, tableName, transactIf } from './client.ts';
import { createPut, entity } from './entity.ts';
import { stack } from './stacks.ts';
import type { TransactItem } from './transact.ts';

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

/**
 * Issues a Stack's Dispatcher credential (its hash stored, never the secret). The Stack's current
 * credential, if any, keeps working until `retiresAt`; one transaction, conditioned on the current
 * credential read, so two rotations at once cannot both win.
 */
export const issueDispatcherCredential = async (params: {
  tenantId: string;
  stackId: string;
  credentialId: string;
  secretHash: string;
  previousHash: string | undefined;
  now: Date;
  retiresAt: Date;
}): Promise<boolean> => {
  const { tenantId, stackId, now } = params;
  const items: TransactItem[] = [
    createPut(dispatcherCredential, [params.secretHash], {
      tenantId,
      stackId,
      credentialId: params.credentialId,
      issuedAt: now.toISOString(),
    }),
    {
      Update: {
        TableName: tableName(),
        Key: stack.key(tenantId, stackId),
        UpdateExpression: 'SET dispatcherCredentialHash = :new, dispatcherCredentialId = :id',
        ConditionExpression: params.previousHash
          ? 'attribute_exists(PK) AND dispatcherCredentialHash = :previous'
          : 'attribute_exists(PK) AND attribute_not_exists(dispatcherCredentialHash)',
        ExpressionAttributeValues: {
          ':new': params.secretHash,
          ':id': params.credentialId,
          ...(params.previousHash ? { ':previous': params.previousHash } : {}),
        },
      },
    },
  ];
  if (params.previousHash) {
    items.push({
      Update: {
        TableName: tableName(),
        Key: dispatcherCredential.key(params.previousHash),
        UpdateExpression: 'SET retiresAt = :retires, #ttl = :ttl',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: {
          ':retires': params.retiresAt.toISOString(),
          ':ttl': Math.floor(params.retiresAt.getTime() / 1000) + 86_400,
        },
      },
    });
  }
  return transactIf(items);
};
