import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { sessionExpiry, sessionRecordTtl } from '#core/sessions.ts';
import { db, tableName } from './client.ts';
import { createPut, entity, getOne } from './entity.ts';

const SessionSchema = v.object({
  userId: v.string(),
  tenantId: v.string(),
  createdAt: v.string(),
  expiresAt: v.string(),
  revokedAt: v.optional(v.string()),
});
export type Session = v.InferOutput<typeof SessionSchema>;

/** A session, found by the SHA-256 of its token; the token itself is never stored. */
export const session = entity({
  type: 'session',
  key: (tokenHash: string) => ({ PK: `SESSION#${tokenHash}`, SK: 'SESSION' }),
  schema: SessionSchema,
});

/** Stores a new session under the hash of its token. Returns the stored session. */
export const createSession = async (
  tokenHash: string,
  owner: { userId: string; tenantId: string },
  now: Date,
): Promise<Session> => {
  const expiresAt = sessionExpiry(now);
  const created: Session = {
    userId: owner.userId,
    tenantId: owner.tenantId,
    createdAt: now.toISOString(),
    expiresAt: expiresAt.toISOString(),
  };
  // TTL only removes old items, long after expiry (enforced by isSessionLive), so that an
  // expired token is still answered `expired_session` in the cloud too.
  const { Put } = createPut(session, [tokenHash], { ...created, ttl: sessionRecordTtl(expiresAt) });
  await db().send(new PutCommand(Put));
  return created;
};

export const getSession = (tokenHash: string): Promise<Session | undefined> => getOne(session, tokenHash);

export const revokeSession = async (tokenHash: string, now: Date): Promise<void> => {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: session.key(tokenHash),
      UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :now)',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':now': now.toISOString() },
    }),
  );
};
