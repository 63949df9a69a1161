import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { hashSessionToken } from '#core/session-token.ts';
import { db, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import { uniqueLogin } from '../support/gateway.ts';

const { api } = gatewayForFile();

const DAY = 86_400;
const storedSession = async (token: string) =>
  (
    await db().send(
      new GetCommand({
        TableName: tableName(),
        Key: keys.session(hashSessionToken(token)),
        ConsistentRead: true,
      }),
    )
  ).Item as { expiresAt: string; ttl: number } | undefined;

describe('an expired session is answered expired_session, in the cloud too', () => {
  it('its record is kept 30 days past its expiry, so TTL has not deleted it when the token comes back', async () => {
    const { sessionToken } = await api.signIn(uniqueLogin());
    const stored = await storedSession(sessionToken);
    if (!stored) throw new Error('no session record');
    expect(stored.ttl).toBe(Math.floor(Date.parse(stored.expiresAt) / 1000) + 30 * DAY);

    // 29 days after the 7-day expiry: DynamoDB TTL (which deletes only after `ttl`) would keep it.
    api.clock.advance(7 * DAY + 29 * DAY);
    expect(stored.ttl).toBeGreaterThan(api.clock.now().getTime() / 1000);
    const response = await api.call('GET', '/v1/me', { token: sessionToken });
    expect(response.status).toBe(401);
    expect(response.json.error.code).toBe('expired_session');
  });
});
