import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { PLAN_VALUES, type PlanValue } from '#core/plans.ts';
import { db, isConditionFailure, tableName } from './client.ts';
import { keys } from './keys.ts';

const WaitlistEntrySchema = v.object({
  tenantId: v.string(),
  plan: v.picklist(PLAN_VALUES),
  region: v.string(),
  joinedAt: v.string(),
  notifiedAt: v.optional(v.string()),
});
export type WaitlistEntry = v.InferOutput<typeof WaitlistEntrySchema>;

/** The sparse index entry through which the sweep finds who waits for a Plan in a region. */
export const waitlistIndexKey = (region: string, plan: PlanValue) => `WAITLIST#${region}#${plan}`;

/** Joins the waitlist for a Plan, once per tenant and Plan: a repeat returns the existing entry. */
export const joinWaitlist = async (
  entry: { tenantId: string; plan: PlanValue; region: string },
  now: Date,
): Promise<{ entry: WaitlistEntry; created: boolean }> => {
  const created: WaitlistEntry = { ...entry, joinedAt: now.toISOString() };
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.waitlist(entry.tenantId, entry.plan),
          type: 'waitlist',
          ...created,
          GSI1PK: waitlistIndexKey(entry.region, entry.plan),
          GSI1SK: `${created.joinedAt}#${entry.tenantId}`,
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
    return { entry: created, created: true };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const { Item } = await db().send(
      new GetCommand({
        TableName: tableName(),
        Key: keys.waitlist(entry.tenantId, entry.plan),
        ConsistentRead: true,
      }),
    );
    return { entry: v.parse(WaitlistEntrySchema, Item), created: false };
  }
};
