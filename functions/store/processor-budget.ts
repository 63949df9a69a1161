import * as v from 'valibot';
import { updateIf } from './client.ts';
import { entity } from './entity.ts';

/**
 * The processor account's call budget, shared by every process of the deployment (API handlers,
 * the sweep, Plan Change tasks, ops commands): time is cut into short windows
 * (functions/ports/rate-limit.ts says how long and how many places each) and every processor call
 * first takes a place in a window, here, with one conditional write on the window's counter: no
 * more callers than `places` can win a window, whichever processes they run in. Window items
 * expire (TTL) a day later.
 */
export const processorWindow = entity({
  type: 'processor_window',
  key: (account: string, window: number) => ({ PK: `PROCESSOR_BUDGET#${account}#${window}`, SK: 'WINDOW' }),
  schema: v.object({ used: v.number() }),
});

/** Takes one place in the account's window; false when its `places` are taken already. */
export const claimProcessorPlace = async (
  account: string,
  window: number,
  places: number,
  expiresAtEpochSeconds: number,
): Promise<boolean> =>
  updateIf({
    Key: processorWindow.key(account, window),
    UpdateExpression: 'SET #type = :type, #ttl = :ttl ADD used :one',
    ConditionExpression: 'attribute_not_exists(used) OR used < :places',
    ExpressionAttributeNames: { '#type': 'type', '#ttl': 'ttl' },
    ExpressionAttributeValues: {
      ':type': processorWindow.type,
      ':ttl': expiresAtEpochSeconds,
      ':one': 1,
      ':places': places,
    },
  });
