import { PutCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { appliedUnlessConditionFails, db, isConditionFailure, tableName } from './client.ts';
import { dueIndexKeys } from './due.ts';
import { keys } from './keys.ts';

/** Processor events are remembered this long, longer than Stripe retries a delivery (3 days). */
export const EVENT_RETENTION_DAYS = 35;

/** The tenant of a processor customer (recorded when the customer was created). */
export const tenantOfCustomer = async (customerId: string): Promise<string | undefined> => {
  const { Items } = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :customer',
      ExpressionAttributeValues: { ':customer': keys.customerIndex(customerId).GSI1PK },
      Limit: 1,
    }),
  );
  const tenantId = Items?.[0]?.tenantId;
  return typeof tenantId === 'string' ? tenantId : undefined;
};

export interface IntakeFacts {
  eventId: string;
  type: string;
  tenantId: string | undefined;
  /** The subscription a completed checkout created, to remember on the tenant's billing record. */
  subscriptionId: string | undefined;
}

/**
 * Applies a processor event once: remembers its id (a repeat fails the condition and changes
 * nothing), marks its tenant due now, and remembers a new subscription id. One transaction.
 */
export const applyEventOnce = async (
  facts: IntakeFacts,
  now: Date,
): Promise<'applied' | 'duplicate' | 'unmatched'> => {
  const receivedAt = now.toISOString();
  const record = {
    Put: {
      TableName: tableName(),
      Item: {
        ...keys.processorEvent(facts.eventId),
        type: 'processor_event',
        eventType: facts.type,
        tenantId: facts.tenantId ?? null,
        receivedAt,
        ttl: Math.floor(now.getTime() / 1000) + EVENT_RETENTION_DAYS * 86400,
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  };
  const items: NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']> = [record];
  if (facts.tenantId) {
    const due = dueIndexKeys(facts.tenantId, receivedAt);
    items.push({
      Update: {
        TableName: tableName(),
        Key: keys.tenant(facts.tenantId),
        UpdateExpression: 'SET dueAt = :now, GSI2PK = :pk, GSI2SK = :sk',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':now': receivedAt, ':pk': due.GSI2PK, ':sk': due.GSI2SK },
      },
    });
    if (facts.subscriptionId) {
      items.push({
        Update: {
          TableName: tableName(),
          Key: keys.billing(facts.tenantId),
          UpdateExpression:
            'SET #type = :type, tenantId = :tenantId, subscriptionId = if_not_exists(subscriptionId, :subscription)',
          ExpressionAttributeNames: { '#type': 'type' },
          ExpressionAttributeValues: {
            ':type': 'billing',
            ':tenantId': facts.tenantId,
            ':subscription': facts.subscriptionId,
          },
        },
      });
    }
  }
  try {
    await db().send(new TransactWriteCommand({ TransactItems: items }));
    return facts.tenantId ? 'applied' : 'unmatched';
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const reasons =
      (error as Error & { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
    if (reasons[0]?.Code === 'ConditionalCheckFailed') return 'duplicate';
    // The tenant item is gone: remember the event, it has nothing to change.
    // Already remembered by a concurrent sweep is just as good.
    await appliedUnlessConditionFails(
      db().send(new PutCommand({ ...record.Put, Item: { ...record.Put.Item, tenantId: null } })),
    );
    return 'unmatched';
  }
};
