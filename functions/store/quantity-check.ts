import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { billing } from './billing.ts';
import { db, tableName } from './client.ts';

/**
 * The tenants that have a subscription, for the operator's quantity check: no index lists them
 * (GSI1 finds one billing record by its customer id; GSI2 holds only tenants the sweep owes a
 * look), so this is a table scan, one page at a time (each page is read, and its tenants checked,
 * before the next is asked for). Only for `npm run ops`, never on a request path.
 */
export async function* scanTenantsWithSubscription(
  pageSize = 1000,
): AsyncGenerator<{ page: number; tenantIds: string[] }> {
  const billingSk = billing.key('-').SK;
  let startKey: Record<string, unknown> | undefined;
  let page = 0;
  do {
    const result = await db().send(
      new ScanCommand({
        TableName: tableName(),
        FilterExpression: 'SK = :billing AND attribute_exists(subscriptionId)',
        ProjectionExpression: 'tenantId',
        ExpressionAttributeValues: { ':billing': billingSk },
        Limit: pageSize,
        ExclusiveStartKey: startKey,
      }),
    );
    page++;
    const tenantIds = (result.Items ?? []).flatMap((item) =>
      typeof item.tenantId === 'string' ? [item.tenantId] : [],
    );
    yield { page, tenantIds };
    startKey = result.LastEvaluatedKey;
  } while (startKey);
}
