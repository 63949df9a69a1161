import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import type { EmailContent } from '#core/emails.ts';
import { appliedUnlessConditionFails, db, tableName } from './client.ts';
import { keys } from './keys.ts';
import type { TransactItem } from './lifecycle.ts';

/** Pending emails are found through this sparse index partition (GSI2). */
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

export const listPendingEmails = async (
  limit: number,
): Promise<{ emails: OutboxEmail[]; itemsRead: number }> => {
  const page = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'GSI2',
      KeyConditionExpression: 'GSI2PK = :pending',
      ExpressionAttributeValues: { ':pending': PENDING },
      Limit: limit,
    }),
  );
  return {
    emails: (page.Items ?? []).map((item) => v.parse(OutboxSchema, item)),
    itemsRead: page.ScannedCount ?? 0,
  };
};

/**
 * Takes a pending email for sending. Marked before the send: if we crash after SES confirmed it
 * but before we record that, the email is not sent again (at most once per key; see decisions).
 */
export const claimEmail = async (key: string, now: Date): Promise<boolean> => {
  return appliedUnlessConditionFails(
    db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.outbox(key),
        UpdateExpression:
          'SET #status = :sending, attemptAt = :now, attempts = attempts + :one REMOVE GSI2PK, GSI2SK',
        ConditionExpression: '#status = :pending',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':sending': 'sending',
          ':pending': 'pending',
          ':now': now.toISOString(),
          ':one': 1,
        },
      }),
    ),
  );
};

export const markEmailSent = async (key: string, messageId: string, now: Date): Promise<void> => {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.outbox(key),
      UpdateExpression: 'SET #status = :sent, messageId = :id, sentAt = :now',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':sent': 'sent', ':id': messageId, ':now': now.toISOString() },
    }),
  );
};

/** SES refused or failed before confirming: the email goes back to pending for the next sweep. */
export const releaseEmail = async (key: string, error: string, now: Date): Promise<void> => {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.outbox(key),
      UpdateExpression: 'SET #status = :pending, lastError = :error, GSI2PK = :pk, GSI2SK = :sk',
      ConditionExpression: '#status = :sending',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':pending': 'pending',
        ':sending': 'sending',
        ':error': error,
        ':pk': PENDING,
        ':sk': `${now.toISOString()}#${key}`,
      },
    }),
  );
};
