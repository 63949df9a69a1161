import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { db, tableName } from './client.ts';
import { keys } from './keys.ts';

export const BILLING_STATES = ['provisioning', 'active', 'past-due', 'suspended', 'decommissioning'] as const;

/** Signup offers only the EU Home Region (spec §2). */
export const SIGNUP_HOME_REGION = 'eu';

export const TenantSchema = v.object({
  tenantId: v.string(),
  billingState: v.picklist(BILLING_STATES),
  homeRegion: v.string(),
  slug: v.nullable(v.string()),
  createdAt: v.string(),
  version: v.number(),
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
