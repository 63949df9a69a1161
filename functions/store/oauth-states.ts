import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { db, tableName } from './client.ts';
import { createPut, entity } from './entity.ts';

const OAuthStateSchema = v.object({
  codeVerifier: v.string(),
  redirectUri: v.string(),
  createdAt: v.string(),
  expiresAt: v.string(),
});
export type OAuthState = v.InferOutput<typeof OAuthStateSchema>;

/** A pending OAuth sign-in, found by the SHA-256 of its `state`. */
export const oauthState = entity({
  type: 'oauth_state',
  key: (stateHash: string) => ({ PK: `OAUTH_STATE#${stateHash}`, SK: 'OAUTH_STATE' }),
  schema: OAuthStateSchema,
});

export const putOAuthState = async (stateHash: string, state: OAuthState): Promise<void> => {
  const { Put } = createPut(oauthState, [stateHash], {
    ...state,
    ttl: Math.floor(Date.parse(state.expiresAt) / 1000) + 3600,
  });
  await db().send(new PutCommand(Put));
};

/**
 * Takes a pending sign-in out of the table and returns it: a `state` is used at most once, even
 * by two racing callbacks (only one delete returns the item).
 */
export const consumeOAuthState = async (stateHash: string): Promise<OAuthState | undefined> => {
  const { Attributes } = await db().send(
    new DeleteCommand({ TableName: tableName(), Key: oauthState.key(stateHash), ReturnValues: 'ALL_OLD' }),
  );
  return Attributes ? oauthState.parse(Attributes) : undefined;
};
