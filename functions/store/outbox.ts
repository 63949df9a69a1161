import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { EMAIL_MAX_ATTEMPTS } from '#core/email-retry.ts';
import type { EmailContent } from '#core/emails.ts';
import { db, tableName, unlessConditionFails, updateIf } from './client.ts';
import { createPut, entity, getOne } from './entity.ts';
import type { TransactItem } from './transact.ts';

/**
 * Emails not yet confirmed are found through this sparse index partition (GSI2), sorted by when
 * they may be sent: a pending one from its creation, a claimed one when its lease ends.
 */
const PENDING = 'OUTBOX#PENDING';
/** Emails parked after their last allowed attempt failed, oldest first, for `npm run ops -- outbox list`. */
const FAILED = 'OUTBOX#FAILED';

const OutboxSchema = v.object({
  key: v.string(),
  to: v.string(),
  subject: v.string(),
  text: v.string(),
  html: v.string(),
  status: v.picklist(['pending', 'sending', 'sent', 'failed']),
  /** Claims so far (each one an attempt to send); also the fence a claim's later writes check. */
  attempts: v.number(),
  /** No claim beyond this many attempts: the email is parked instead (items written before it: the default). */
  attemptLimit: v.optional(v.number(), EMAIL_MAX_ATTEMPTS),
  createdAt: v.optional(v.string()),
  lastError: v.optional(v.string()),
  /** When a pending email may be tried next (its place in the pending index). */
  GSI2SK: v.optional(v.string()),
  failedAt: v.optional(v.string()),
});
export type OutboxEmail = v.InferOutput<typeof OutboxSchema>;

/** One email, sent at most once per key. */
export const outbox = entity({
  type: 'outbox',
  key: (key: string) => ({ PK: `OUTBOX#${key}`, SK: 'OUTBOX' }),
  schema: OutboxSchema,
  indexes: {
    /** Sendable from `at` (pending, or claimed until its lease ends at `at`). */
    pending: (at: string, key: string) => ({ GSI2PK: PENDING, GSI2SK: `${at}#${key}` }),
    /** Parked at `at` after its last allowed attempt. */
    failed: (at: string, key: string) => ({ GSI2PK: FAILED, GSI2SK: `${at}#${key}` }),
  },
});

/**
 * The write that puts an email in the outbox, to go in the same transaction as the fact it
 * reports. A key that exists already makes the whole transaction fail: one email per key.
 */
export const outboxPut = (key: string, to: string, content: EmailContent, now: Date): TransactItem =>
  createPut(outbox, [key], {
    key,
    to,
    ...content,
    status: 'pending',
    attempts: 0,
    attemptLimit: EMAIL_MAX_ATTEMPTS,
    createdAt: now.toISOString(),
    ...outbox.index.pending(now.toISOString(), key),
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
    emails: (page.Items ?? []).map((item) => outbox.parse(item)),
    itemsRead: page.ScannedCount ?? 0,
  };
};

/** The claim's cap: `attempts < attemptLimit` (an item written before the limit existed: the default). */
const BELOW_LIMIT =
  '((attribute_exists(attemptLimit) AND attempts < attemptLimit) OR (attribute_not_exists(attemptLimit) AND attempts < :max))';

/**
 * Takes an email for sending until `leaseUntil`: a pending one whose time has come, or one whose earlier claim's lease
 * ran out without a recorded delivery. While the lease runs no other sweep sends it; once it ends
 * the email is sendable again (it stays in the pending index, sorted at the lease's end). An email
 * whose delivery is recorded (`sent`, with SES's message id) is never claimed again, nor one that
 * has had all its attempts (it is parked instead, `parkEmail`). Answers the claim's attempt number
 * and the email's attempt limit, or undefined when someone else holds it, it was delivered, or it
 * has no attempt left.
 */
export const claimEmail = async (
  key: string,
  now: Date,
  leaseUntil: Date,
): Promise<{ attempt: number; attemptLimit: number } | undefined> => {
  const claimed = await unlessConditionFails(
    db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: outbox.key(key),
        UpdateExpression:
          'SET #status = :sending, attemptAt = :now, leaseUntil = :lease, GSI2SK = :sk, attempts = attempts + :one',
        // A pending email only once its time has come: a sweep holding an older read of it must not
        // cut its backoff short.
        ConditionExpression: `((#status = :pending AND GSI2SK <= :due) OR (#status = :sending AND leaseUntil <= :now)) AND ${BELOW_LIMIT}`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':sending': 'sending',
          ':pending': 'pending',
          ':now': now.toISOString(),
          ':due': `${now.toISOString()}#\uffff`,
          ':lease': leaseUntil.toISOString(),
          ':sk': outbox.index.pending(leaseUntil.toISOString(), key).GSI2SK,
          ':one': 1,
          ':max': EMAIL_MAX_ATTEMPTS,
        },
        ReturnValues: 'ALL_NEW',
      }),
    ),
  );
  if (!claimed) return undefined;
  // The limit as it is now (an operator's retry may have raised it since the email was read).
  const { attempts, attemptLimit } = outbox.parse(claimed.Attributes);
  return { attempt: attempts, attemptLimit };
};

/**
 * Records SES's confirmation: from now on the email is never sent again. If another attempt
 * recorded its delivery first (a lease ran out while SES was slow), the first record stays and
 * this answers false: the recipient got it twice, the price of never losing one.
 */
export const markEmailSent = async (key: string, messageId: string, now: Date): Promise<boolean> => {
  return updateIf({
    Key: outbox.key(key),
    UpdateExpression: 'SET #status = :sent, messageId = :id, sentAt = :now REMOVE GSI2PK, GSI2SK, leaseUntil',
    ConditionExpression: 'attribute_exists(PK) AND #status <> :sent',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':sent': 'sent', ':id': messageId, ':now': now.toISOString() },
  });
};

/**
 * SES refused or failed before confirming: the email goes back to pending, to be tried again at
 * `retryAt` (the backoff of functions/core/email-retry.ts), unless a later claim (after this one's
 * lease ran out) holds it now.
 */
export const releaseEmail = async (
  key: string,
  attempt: number,
  error: string,
  retryAt: Date,
): Promise<void> => {
  await updateIf({
    Key: outbox.key(key),
    UpdateExpression: 'SET #status = :pending, lastError = :error, GSI2SK = :sk REMOVE leaseUntil',
    ConditionExpression: '#status = :sending AND attempts = :attempt',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ':pending': 'pending',
      ':sending': 'sending',
      ':attempt': attempt,
      ':error': error,
      ':sk': outbox.index.pending(retryAt.toISOString(), key).GSI2SK,
    },
  });
};

/**
 * Parks an email that had its last allowed attempt: `failed`, out of the pending index and into
 * the failed one, with the last error. Either right after that attempt failed (`heldBy`: the
 * claim's attempt number, still holding it), or when that attempt's sender never came back (its
 * lease ran out: `attempts` as read, and the lease over at `now`). Answers whether it parked it
 * (false: another sweep did, or the email changed meanwhile).
 */
export const parkEmail = async (
  key: string,
  attempt: number,
  error: string,
  now: Date,
  how: 'after_failed_attempt' | 'lease_ran_out',
): Promise<boolean> =>
  updateIf({
    Key: outbox.key(key),
    UpdateExpression:
      'SET #status = :failed, lastError = :error, failedAt = :now, GSI2PK = :parked, GSI2SK = :sk REMOVE leaseUntil',
    ConditionExpression:
      how === 'after_failed_attempt'
        ? '#status = :sending AND attempts = :attempt'
        : '#status = :sending AND attempts = :attempt AND leaseUntil <= :now',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ':failed': 'failed',
      ':sending': 'sending',
      ':attempt': attempt,
      ':error': error,
      ':now': now.toISOString(),
      ':parked': FAILED,
      ':sk': outbox.index.failed(now.toISOString(), key).GSI2SK,
    },
  });

/** Reads a whole sparse index partition, page by page (for the operators: never on a hot path). */
const readPartition = async (partition: string, filter?: string): Promise<OutboxEmail[]> => {
  const emails: OutboxEmail[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'GSI2',
        KeyConditionExpression: 'GSI2PK = :partition',
        ...(filter ? { FilterExpression: filter } : {}),
        ExpressionAttributeValues: { ':partition': partition, ...(filter ? { ':zero': 0 } : {}) },
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      }),
    );
    for (const item of page.Items ?? []) emails.push(outbox.parse(item));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return emails;
};

/**
 * What needs an operator's eye: the parked emails (oldest first), and the ones still being retried
 * (at least one attempt made, not yet confirmed), by their next attempt.
 */
export const listTroubledEmails = async (): Promise<{ failed: OutboxEmail[]; retrying: OutboxEmail[] }> => {
  const [failed, retrying] = await Promise.all([
    readPartition(FAILED),
    readPartition(PENDING, 'attempts > :zero'),
  ]);
  return { failed, retrying };
};

/** The outbox email of `key`, whatever its status (strongly consistent). */
export const getEmail = (key: string): Promise<OutboxEmail | undefined> => getOne(outbox, key);

/**
 * An operator gives a parked email another round: pending from `now`, with as many attempts again
 * as a new email has. Only a `failed` email moves (a sent one is never sent again). Answers false
 * when the email is not parked (any more).
 */
export const retryParkedEmail = async (key: string, now: Date): Promise<boolean> =>
  updateIf({
    Key: outbox.key(key),
    UpdateExpression:
      'SET #status = :pending, attemptLimit = attempts + :max, GSI2PK = :pendingIndex, GSI2SK = :sk REMOVE failedAt',
    ConditionExpression: '#status = :failed',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ':pending': 'pending',
      ':failed': 'failed',
      ':max': EMAIL_MAX_ATTEMPTS,
      ':pendingIndex': PENDING,
      ':sk': outbox.index.pending(now.toISOString(), key).GSI2SK,
    },
  });
