import { tableName, transactIf } from './client.ts';
import { keys } from './keys.ts';
import { newTenantItem, slugClaimPut } from './tenants.ts';

// A module of its own, apart from store/users.ts: the session authorizer reads memberships from
// users.ts on every request, and this one transaction is needed by POST /v1/tenant/slug only.

/**
 * A returning customer's new account, in ONE transaction: the new tenant (in `provisioning`, its
 * slug locked, carrying `carried`), the slug's claim (no tenant may hold it already), the person
 * moved to it (only if still on `oldTenantId`), a new administrator membership, the old one kept
 * as former (so its billing stays readable), the old tenant still torn down, and the calling
 * session moved along. Two racing requests make one account; a crash leaves nothing half-done.
 * False when a condition failed (the caller re-reads to say why).
 */
export const startNewAccount = async (params: {
  userId: string;
  oldTenantId: string;
  newTenantId: string;
  slug: string;
  carried: Record<string, unknown>;
  /** The hash of the calling session's token, moved to the new tenant in the same transaction. */
  sessionTokenHash: string | undefined;
  now: Date;
}): Promise<boolean> => {
  const { userId, oldTenantId, newTenantId, slug, now } = params;
  const at = now.toISOString();
  return transactIf([
    {
      Put: {
        TableName: tableName(),
        Item: {
          ...newTenantItem(newTenantId, now),
          slug,
          slugLockedAt: at,
          returning: params.carried,
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
    slugClaimPut(slug, newTenantId, now),
    {
      ConditionCheck: {
        TableName: tableName(),
        Key: keys.tenant(oldTenantId),
        ConditionExpression: 'attribute_exists(tornDownAt)',
      },
    },
    {
      Update: {
        TableName: tableName(),
        Key: keys.user(userId),
        UpdateExpression:
          'SET tenantId = :new, formerTenantIds = list_append(if_not_exists(formerTenantIds, :none), :old)',
        ConditionExpression: 'tenantId = :oldId',
        ExpressionAttributeValues: {
          ':new': newTenantId,
          ':none': [],
          ':old': [oldTenantId],
          ':oldId': oldTenantId,
        },
      },
    },
    {
      Update: {
        TableName: tableName(),
        Key: keys.member(oldTenantId, userId),
        UpdateExpression: 'SET formerAt = :at',
        ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(formerAt)',
        ExpressionAttributeValues: { ':at': at },
      },
    },
    {
      Put: {
        TableName: tableName(),
        Item: {
          ...keys.member(newTenantId, userId),
          type: 'member',
          tenantId: newTenantId,
          userId,
          role: 'administrator',
          createdAt: at,
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
    ...(params.sessionTokenHash
      ? [
          {
            Update: {
              TableName: tableName(),
              Key: keys.session(params.sessionTokenHash),
              UpdateExpression: 'SET tenantId = :new',
              ConditionExpression: 'tenantId = :oldId AND userId = :user',
              ExpressionAttributeValues: {
                ':new': newTenantId,
                ':oldId': oldTenantId,
                ':user': userId,
              },
            },
          },
        ]
      : []),
  ]);
};
