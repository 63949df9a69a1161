import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import type { EmailContent } from '#core/emails.ts';
import { appliedUnlessConditionFails, db, isConditionFailure, tableName } from './client.ts';
import { keys } from './keys.ts';
import type { TransactItem } from './transact.ts';

/**
 * Emails not yet confirmed are found through this sparse index partition (GSI2), sorted by when
 * they may be sent: a pending one from its creation, a claimed one when its lease ends.
 */
const PENDING = 'OUTBOX#PENDING';

const OutboxSchema = v.object({
  key: v.string(),
  to: v.string(),
  subject: v.string(),
  text: v.string(),
  html: v.string(),
  status: v.picklist(['pending', 'sending', 'sent']),
  attempts: v.number(),
});
export type OutboxEmail = v.InferOutput<typeof OutboxSchema>;

/**
 * The write that puts an email in the outbox, to go in the same transaction as the fact it
 * reports. A key that exists already makes the whole transaction fail: one email per key.
 */
export const outboxPut = (key: string, to: string, content: EmailContent, now: Date): TransactItem => ({
  Put: {
    TableName: tableName(),
    Item: {
      ...keys.outbox(key),
      type: 'outbox',
      key,
      to,
      ...content,
      status: 'pending',
      attempts: 0,
      createdAt: now.toISOString(),
      GSI2PK: PENDING,
      GSI2SK: `${now.toISOString()}#${key}`,
    },
    ConditionExpression: 'attribute_not_exists(PK)',
  },
});

/**
 * Emails the sweep may send now, oldest first: pending ones, and claimed ones whose lease ran out
 * (the sender crashed or timed out before SES's confirmation was recorded). Both sit in the sparse
 * GSI2 partition sorted by the time they become sendable, so the query reads only those.
 */
export const listPendingEmails = async (
  now: Date,
  limit: number,
): Promise<{ emails: OutboxEmail[]; itemsRead: number }> => {
  const page = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'GSI2',
      KeyConditionExpression: 'GSI2PK = :pending AND GSI2SK <= :now',
      ExpressionAttributeValues: { ':pending': PENDING, ':now': `${now.toISOString()}#\uffff` },
      Limit: limit,
    }),
  );
  return {
    emails: (page.Items ?? []).map((item) => v.parse(OutboxSchema, item)),
    itemsRead: page.ScannedCount ?? 0,
  };
};

/**
 * Takes an email for sending until `leaseUntil`: a pending one, or one whose earlier claim's lease
 * ran out without a recorded delivery. While the lease runs no other sweep sends it; once it ends
 * the email is sendable again (it stays in the pending index, sorted at the lease's end). An email
 * whose delivery is recorded (`sent`, with SES's message id) is never claimed again. Answers the
 * claim's attempt number, or undefined when someone else holds it or it was delivered.
 */
export const claimEmail = async (key: string, now: Date, leaseUntil: Date): Promise<number | undefined> => {
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.outbox(key),
        UpdateExpression:
          'SET #status = :sending, attemptAt = :now, leaseUntil = :lease, GSI2SK = :sk, attempts = attempts + :one',
        ConditionExpression: '#status = :pending OR (#status = :sending AND leaseUntil <= :now)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':sending': 'sending',
          ':pending': 'pending',
          ':now': now.toISOString(),
          ':lease': leaseUntil.toISOString(),
          ':sk': `${leaseUntil.toISOString()}#${key}`,
          ':one': 1,
        },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Number(Attributes?.attempts);
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
};

/**
 * Records SES's confirmation: from now on the email is never sent again. If another attempt
 * recorded its delivery first (a lease ran out while SES was slow), the first record stays and
 * this answers false: the recipient got it twice, the price of never losing one.
 */
export const markEmailSent = async (key: string, messageId: string, now: Date): Promise<boolean> => {
  return appliedUnlessConditionFails(
    db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.outbox(key),
        UpdateExpression:
          'SET #status = :sent, messageId = :id, sentAt = :now REMOVE GSI2PK, GSI2SK, leaseUntil',
        ConditionExpression: 'attribute_exists(PK) AND #status <> :sent',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':sent': 'sent', ':id': messageId, ':now': now.toISOString() },
      }),
    ),
  );
};

/**
 * SES refused or failed before confirming: the email goes back to pending for the next sweep,
 * unless a later claim (after this one's lease ran out) holds it now.
 */
export const releaseEmail = async (key: string, attempt: number, error: string, now: Date): Promise<void> => {
  await appliedUnlessConditionFails(
    db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.outbox(key),
        UpdateExpression: 'SET #status = :pending, lastError = :error, GSI2SK = :sk REMOVE leaseUntil',
        ConditionExpression: '#status = :sending AND attempts = :attempt',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':pending': 'pending',
          ':sending': 'sending',
          ':attempt': attempt,
          ':error': error,
          ':sk': `${now.toISOString()}#${key}`,
        },
      }),
    ),
  );
};
