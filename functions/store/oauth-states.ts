import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { db, tableName } from './client.ts';
import { keys } from './keys.ts';

const OAuthStateSchema = v.object({
  codeVerifier: v.string(),
  redirectUri: v.string(),
  createdAt: v.string(),
  expiresAt: v.string(),
});
export type OAuthState = v.InferOutput<typeof OAuthStateSchema>;

export const putOAuthState = async (stateHash: string, state: OAuthState): Promise<void> => {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...keys.oauthState(stateHash),
        type: 'oauth_state',
        ...state,
        ttl: Math.floor(Date.parse(state.expiresAt) / 1000) + 3600,
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
};

/**
 * Takes a pending sign-in out of the table and returns it: a `state` is used at most once, even
 * by two racing callbacks (only one delete returns the item).
 */
export const consumeOAuthState = async (stateHash: string): Promise<OAuthState | undefined> => {
  const { Attributes } = await db().send(
    new DeleteCommand({ TableName: tableName(), Key: keys.oauthState(stateHash), ReturnValues: 'ALL_OLD' }),
  );
  return Attributes ? v.parse(OAuthStateSchema, Attributes) : undefined;
};
