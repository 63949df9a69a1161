import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { BILLING_STATES } from '#core/billing-state.ts';
import { appliedUnlessConditionFails, db, tableName } from './client.ts';
import { keys } from './keys.ts';

/** Signup offers only the EU Home Region (spec §2). */
export const SIGNUP_HOME_REGION = 'eu';

export const TenantSchema = v.object({
  tenantId: v.string(),
  billingState: v.picklist(BILLING_STATES),
  homeRegion: v.string(),
  slug: v.nullable(v.string()),
  createdAt: v.string(),
  version: v.number(),
  graceDeadline: v.optional(v.nullable(v.string()), null),
  dueAt: v.optional(v.string()),
});
export type Tenant = v.InferOutput<typeof TenantSchema>;

export const newTenantItem = (tenantId: string, now: Date) => ({
  ...keys.tenant(tenantId),
  type: 'tenant',
  tenantId,
  billingState: 'provisioning' as const,
  homeRegion: SIGNUP_HOME_REGION,
  slug: null,
  createdAt: now.toISOString(),
  version: 1,
});

export const getTenant = async (tenantId: string): Promise<Tenant | undefined> => {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.tenant(tenantId), ConsistentRead: true }),
  );
  return Item ? v.parse(TenantSchema, Item) : undefined;
};

/**
 * Locks a slug for a tenant that has none: one transaction claims the slug (which no other tenant
 * may hold, ever) and sets it on the tenant (which must still have none). Returns false when a
 * condition failed; the caller re-reads the tenant to say why.
 */
export const lockSlug = async (tenantId: string, slug: string, now: Date): Promise<boolean> => {
  return appliedUnlessConditionFails(
    db().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: tableName(),
              Item: { ...keys.slug(slug), type: 'slug', slug, tenantId, lockedAt: now.toISOString() },
              ConditionExpression: 'attribute_not_exists(PK)',
            },
          },
          {
            Update: {
              TableName: tableName(),
              Key: keys.tenant(tenantId),
              UpdateExpression: 'SET #slug = :slug, slugLockedAt = :now, #version = #version + :one',
              ConditionExpression: 'attribute_exists(PK) AND attribute_type(#slug, :null)',
              ExpressionAttributeNames: { '#slug': 'slug', '#version': 'version' },
              ExpressionAttributeValues: {
                ':slug': slug,
                ':now': now.toISOString(),
                ':one': 1,
                ':null': 'NULL',
              },
            },
          },
        ],
      }),
    ),
  );
};
