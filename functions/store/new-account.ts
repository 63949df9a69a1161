import { tableName, transactIf } from './client.ts';
import { createPut } from './entity.ts';
import { session } from './sessions.ts';
import { newTenantPut, slugClaimPut, tenant } from './tenants.ts';
import { member, user } from './users.ts';

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
    newTenantPut(newTenantId, now, { slug, slugLockedAt: at, returning: params.carried }),
    slugClaimPut(slug, newTenantId, now),
    {
      ConditionCheck: {
        TableName: tableName(),
        Key: tenant.key(oldTenantId),
        ConditionExpression: 'attribute_exists(tornDownAt)',
      },
    },
    {
      Update: {
        TableName: tableName(),
        Key: user.key(userId),
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
        Key: member.key(oldTenantId, userId),
        UpdateExpression: 'SET formerAt = :at',
        ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(formerAt)',
        ExpressionAttributeValues: { ':at': at },
      },
    },
    createPut(member, [newTenantId, userId], {
      tenantId: newTenantId,
      userId,
      role: 'administrator',
      createdAt: at,
    }),
    ...(params.sessionTokenHash
      ? [
          {
            Update: {
              TableName: tableName(),
              Key: session.key(params.sessionTokenHash),
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
