import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { db, deleteIf, getItem, tableName, unlessConditionFails, updateIf } from './client.ts';
import type { Key } from './entity.ts';

/**
 * THE lease primitive (the sweep's lease, a tenant's subscription-items lease): one item, taken
 * with a conditional write when nobody holds it or its time ran out (`leaseUntil`, from the Clock,
 * compared as data), given back by its holder only. A holder that crashed holds it until
 * `leaseUntil`.
 */

/** Another holder has the lease until `busyUntil`. */
export type LeaseBusy = { busyUntil: string };

const LeaseTimeSchema = v.object({ leaseUntil: v.optional(v.string()) });

/**
 * Takes the lease at `key` for `holder` until `until` when it is free or expired: answers the item
 * as it is now (with `set`, more attributes written with the take; `#type` is `type`). Else says
 * until when it is busy.
 */
export const takeLease = async (
  key: Key,
  request: {
    holder: string;
    type: string;
    now: Date;
    until: string;
    set?: { expression: string; values: Record<string, unknown> };
  },
): Promise<{ item: Record<string, unknown> } | LeaseBusy> => {
  const taken = await unlessConditionFails(
    db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: `SET #type = :type, holder = :holder, leaseUntil = :until${request.set ? `, ${request.set.expression}` : ''}`,
        ConditionExpression: 'attribute_not_exists(holder) OR leaseUntil <= :now',
        ExpressionAttributeNames: { '#type': 'type' },
        ExpressionAttributeValues: {
          ':type': request.type,
          ':holder': request.holder,
          ':until': request.until,
          ':now': request.now.toISOString(),
          ...request.set?.values,
        },
        ReturnValues: 'ALL_NEW',
      }),
    ),
  );
  if (taken) return { item: taken.Attributes ?? {} };
  const current = await getItem(key, LeaseTimeSchema);
  return { busyUntil: current?.leaseUntil ?? request.now.toISOString() };
};

/**
 * Gives the lease back (only its holder can; a holder whose time ran out finds another's, and
 * leaves it). The item goes; with `deleteOnlyIf`, only when that also holds (else only the holder
 * and its time go, and the rest of the item stays).
 */
export const releaseLease = async (
  key: Key,
  holder: string,
  deleteOnlyIf?: { condition: string; values: Record<string, unknown> },
): Promise<void> => {
  const deleted = await deleteIf({
    Key: key,
    ConditionExpression: deleteOnlyIf
      ? `holder = :holder AND (${deleteOnlyIf.condition})`
      : 'holder = :holder',
    ExpressionAttributeValues: { ':holder': holder, ...deleteOnlyIf?.values },
  });
  if (deleted || !deleteOnlyIf) return;
  await updateIf({
    Key: key,
    UpdateExpression: 'REMOVE holder, leaseUntil',
    ConditionExpression: 'holder = :holder',
    ExpressionAttributeValues: { ':holder': holder },
  });
};
