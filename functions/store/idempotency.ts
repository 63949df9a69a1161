import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { db, isConditionFailure, tableName } from './client.ts';
import { keys } from './keys.ts';
import type { TransactItem } from './transact.ts';

/** How long a request's Idempotency-Key is remembered. */
export const IDEMPOTENCY_HOURS = 24;

const RecordSchema = v.object({
  fingerprint: v.string(),
  state: v.picklist(['pending', 'done']),
  /** What the first request decided (e.g. the new Stack's id and the item change it asked for). */
  plan: v.record(v.string(), v.unknown()),
  status: v.optional(v.number()),
  result: v.optional(v.unknown()),
  createdAt: v.string(),
});
export type IdempotencyRecord = v.InferOutput<typeof RecordSchema>;

/**
 * Claims an Idempotency-Key for a request: `claimed` the first time; otherwise the record the first
 * request left (same fingerprint: replay it or say it is in progress; another: a reused key).
 */
export const claimIdempotencyKey = async (
  tenantId: string,
  key: string,
  record: { fingerprint: string; plan: Record<string, unknown> },
  now: Date,
): Promise<{ claimed: true } | { claimed: false; existing: IdempotencyRecord }> => {
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.idempotency(tenantId, key),
          type: 'idempotency',
          ...record,
          state: 'pending',
          createdAt: now.toISOString(),
          ttl: Math.floor(now.getTime() / 1000) + IDEMPOTENCY_HOURS * 3600,
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
    return { claimed: true };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.idempotency(tenantId, key), ConsistentRead: true }),
  );
  if (!Item) return claimIdempotencyKey(tenantId, key, record, now);
  return { claimed: false, existing: v.parse(RecordSchema, Item) };
};

/** The write that records a request's outcome with its other effects (one transaction). */
export const idempotencyDoneWrite = (
  tenantId: string,
  key: string,
  status: number,
  result: unknown,
): TransactItem => ({
  Update: {
    TableName: tableName(),
    Key: keys.idempotency(tenantId, key),
    UpdateExpression: 'SET #state = :done, #status = :status, #result = :result',
    ConditionExpression: '#state = :pending',
    ExpressionAttributeNames: { '#state': 'state', '#status': 'status', '#result': 'result' },
    ExpressionAttributeValues: {
      ':done': 'done',
      ':pending': 'pending',
      ':status': status,
      ':result': result,
    },
  },
});

/** Forgets a claim whose request failed before any effect, so the same key can be tried again. */
export const releaseIdempotencyKey = async (tenantId: string, key: string): Promise<void> => {
  await db()
    .send(
      new DeleteCommand({
        TableName: tableName(),
        Key: keys.idempotency(tenantId, key),
        ConditionExpression: 'attribute_not_exists(#state) OR #state = :pending',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':pending': 'pending' },
      }),
    )
    .catch((error: unknown) => {
      if (!isConditionFailure(error)) throw error;
    });
};

/** Remembers what the first request decided, so a retry after a crash carries on with the same decision. */
export const recordIdempotencyPlan = async (
  tenantId: string,
  key: string,
  plan: Record<string, unknown>,
): Promise<void> => {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.idempotency(tenantId, key),
      UpdateExpression: 'SET #plan = :plan',
      ConditionExpression: '#state = :pending',
      ExpressionAttributeNames: { '#plan': 'plan', '#state': 'state' },
      ExpressionAttributeValues: { ':plan': plan, ':pending': 'pending' },
    }),
  );
};
