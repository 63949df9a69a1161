import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { sessionExpiry, sessionRecordTtl } from '#core/sessions.ts';
import { db, tableName } from './client.ts';
import { keys } from './keys.ts';

const SessionSchema = v.object({
  userId: v.string(),
  tenantId: v.string(),
  createdAt: v.string(),
  expiresAt: v.string(),
  revokedAt: v.optional(v.string()),
});
export type Session = v.InferOutput<typeof SessionSchema>;

/** Stores a new session under the hash of its token. Returns the stored session. */
export const createSession = async (
  tokenHash: string,
  owner: { userId: string; tenantId: string },
  now: Date,
): Promise<Session> => {
  const expiresAt = sessionExpiry(now);
  const session: Session = {
    userId: owner.userId,
    tenantId: owner.tenantId,
    createdAt: now.toISOString(),
    expiresAt: expiresAt.toISOString(),
  };
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...keys.session(tokenHash),
        type: 'session',
        ...session,
        // TTL only removes old items, long after expiry (enforced by isSessionLive), so that an
        // expired token is still answered `expired_session` in the cloud too.
        ttl: sessionRecordTtl(expiresAt),
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
  return session;
};

export const getSession = async (tokenHash: string): Promise<Session | undefined> => {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.session(tokenHash), ConsistentRead: true }),
  );
  return Item ? v.parse(SessionSchema, Item) : undefined;
};

export const revokeSession = async (tokenHash: string, now: Date): Promise<void> => {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.session(tokenHash),
      UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :now)',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':now': now.toISOString() },
    }),
  );
};
