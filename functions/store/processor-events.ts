import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { billing } from './billing.ts';
import { db, putIf, tableName, transactOrRefusals } from './client.ts';
import { createPut, entity } from './entity.ts';
import { tenant } from './tenants.ts';
import type { TransactItem } from './transact.ts';

/** Processor events are remembered this long, longer than Stripe retries a delivery (3 days). */
export const EVENT_RETENTION_DAYS = 35;

/** A processor event applied once (kept `EVENT_RETENTION_DAYS`). */
export const processorEvent = entity({
  type: 'processor_event',
  key: (eventId: string) => ({ PK: `EVENT#${eventId}`, SK: 'EVENT' }),
  schema: v.object({ eventType: v.string(), tenantId: v.nullable(v.string()), receivedAt: v.string() }),
});

/** The tenant of a processor customer (recorded when the customer was created). */
export const tenantOfCustomer = async (customerId: string): Promise<string | undefined> => {
  const { Items } = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :customer',
      ExpressionAttributeValues: { ':customer': billing.index.customer(customerId).GSI1PK },
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
  const remembered = (tenantId: string | null) =>
    createPut(processorEvent, [facts.eventId], {
      eventType: facts.type,
      tenantId,
      receivedAt,
      ttl: Math.floor(now.getTime() / 1000) + EVENT_RETENTION_DAYS * 86400,
    });
  const items: TransactItem[] = [remembered(facts.tenantId ?? null)];
  if (facts.tenantId) {
    const due = tenant.index.due(facts.tenantId, receivedAt);
    items.push({
      Update: {
        TableName: tableName(),
        Key: tenant.key(facts.tenantId),
        UpdateExpression: 'SET dueAt = :now, GSI2PK = :pk, GSI2SK = :sk',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':now': receivedAt, ':pk': due.GSI2PK, ':sk': due.GSI2SK },
      },
    });
    if (facts.subscriptionId) {
      items.push({
        Update: {
          TableName: tableName(),
          Key: billing.key(facts.tenantId),
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
  const refused = await transactOrRefusals(items);
  if (!refused) return facts.tenantId ? 'applied' : 'unmatched';
  if (refused.includes(0)) return 'duplicate';
  // The tenant item is gone: remember the event, it has nothing to change.
  // Already remembered by a concurrent sweep is just as good.
  await putIf(remembered(null).Put);
  return 'unmatched';
};
