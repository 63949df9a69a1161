import { GetCommand, PutCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { PLAN_VALUES, type PlanValue } from '#core/plans.ts';
import { appliedUnlessConditionFails, db, isConditionFailure, tableName } from './client.ts';
import { keys } from './keys.ts';
import type { TransactItem } from './lifecycle.ts';

const WaitlistEntrySchema = v.object({
  tenantId: v.string(),
  plan: v.picklist(PLAN_VALUES),
  region: v.string(),
  joinedAt: v.string(),
  joinedBy: v.string(),
  notifiedAt: v.optional(v.string()),
});
export type WaitlistEntry = v.InferOutput<typeof WaitlistEntrySchema>;

/** Entries still waiting are in this sparse index partition (GSI1); a notified one leaves it. */
const WAITING = 'WAITLIST';

/** Joins the waitlist for a Plan, once per tenant and Plan: a repeat returns the existing entry. */
export const joinWaitlist = async (
  entry: { tenantId: string; plan: PlanValue; region: string; joinedBy: string },
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
          GSI1PK: WAITING,
          GSI1SK: `${entry.region}#${entry.plan}#${created.joinedAt}#${entry.tenantId}`,
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

/** Every entry still waiting, oldest first per region and Plan. Reports the items it read. */
export const listWaitingEntries = async (
  limit: number,
): Promise<{ entries: WaitlistEntry[]; itemsRead: number }> => {
  const page = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :waiting',
      ExpressionAttributeValues: { ':waiting': WAITING },
      Limit: limit,
    }),
  );
  return {
    entries: (page.Items ?? []).map((item) => v.parse(WaitlistEntrySchema, item)),
    itemsRead: page.ScannedCount ?? 0,
  };
};

/** Marks an entry notified together with its email in the outbox: both happen, once, or neither. */
export const notifyWaitlistEntry = async (
  entry: WaitlistEntry,
  email: TransactItem,
  now: Date,
): Promise<boolean> => {
  return appliedUnlessConditionFails(
    db().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: tableName(),
              Key: keys.waitlist(entry.tenantId, entry.plan),
              UpdateExpression: 'SET notifiedAt = :now REMOVE GSI1PK, GSI1SK',
              ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(notifiedAt)',
              ExpressionAttributeValues: { ':now': now.toISOString() },
            },
          },
          email,
        ],
      }),
    ),
  );
};
