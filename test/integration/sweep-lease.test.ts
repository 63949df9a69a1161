import { randomUUID } from 'node:crypto';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installClock } from '#ports/clock.ts';
import { db, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { takeSweepLease } from '#store/sweep-lease.ts';
import { newTenantItem, tenant as tenantEntity } from '#store/tenants.ts';
import type { SweepSkipped, SweepSummary } from '../../functions/reconciler/run-sweep.ts';
import { handler } from '../../functions/reconciler/sweep.ts';
import { createProcessorQueues } from '../../lib/local/cloud.ts';
import { ensureTable } from '../../lib/local/dynamodb.ts';

/*
 * One sweep at a time in the cloud (issue 22 item 3): the reconciler has no reserved concurrency,
 * so its handler takes the sweep lease in the table; a second invocation meanwhile returns at once,
 * and a crashed holder's lease frees itself at its end, by the Clock. A table of its own: the lease
 * is one item per table.
 */
const table = `sweep-lease-${randomUUID().slice(0, 8)}`;
let current = new Date('2026-07-01T12:00:00.000Z');
const advance = (seconds: number) => {
  current = new Date(current.getTime() + seconds * 1000);
};
/** A Lambda context with a minute left (the reconciler's timeout). */
const lambdaContext = { getRemainingTimeInMillis: () => 60_000 } as Context;

beforeAll(async () => {
  await ensureTable(process.env.AWS_ENDPOINT_URL_DYNAMODB ?? '', table);
  process.env.TABLE_NAME = table;
  const queues = await createProcessorQueues(
    process.env.AWS_ENDPOINT_URL_SQS ?? '',
    `lease-${randomUUID().slice(0, 8)}`,
  );
  process.env.PROCESSOR_EVENTS_QUEUE_URL = queues.events;
  process.env.PROCESSOR_EVENTS_DLQ_URL = queues.deadLetters;
  installClock({ now: () => current });
});
afterAll(async () => {
  const client = new DynamoDBClient({});
  await client.send(new DeleteTableCommand({ TableName: table }));
  client.destroy();
});

/** A tenant due now that reconciles without the processor (provisioning, nothing bought). */
const putDueTenant = async () => {
  const tenantId = randomUUID();
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...newTenantItem(tenantId, current),
        dueAt: current.toISOString(),
        ...tenantEntity.index.due(tenantId, current.toISOString()),
      },
    }),
  );
  return tenantId;
};
const leaseItem = async () =>
  (await db().send(new GetCommand({ TableName: tableName(), Key: keys.sweepLease(), ConsistentRead: true })))
    .Item;
const skipped = (result: SweepSummary | SweepSkipped): result is SweepSkipped => 'skipped' in result;

describe('the sweep lease', () => {
  it('two sweeps started at once: one does the work, the other returns at once; the lease is given back', async () => {
    await putDueTenant();
    const results = await Promise.all([handler({}, lambdaContext), handler({}, lambdaContext)]);
    const ran = results.filter((result) => !skipped(result)) as SweepSummary[];
    const idle = results.filter(skipped);
    expect(ran).toHaveLength(1);
    expect(ran[0]?.reconciled).toBe(1);
    expect(idle).toEqual([{ skipped: true, busyUntil: new Date(current.getTime() + 60_000).toISOString() }]);
    expect(await leaseItem()).toBeUndefined();
    // Free again: the next invocation sweeps.
    await putDueTenant();
    const next = await handler({}, lambdaContext);
    expect(skipped(next)).toBe(false);
    expect((next as SweepSummary).reconciled).toBe(1);
  });

  it("a crashed holder's lease holds until its end, by the Clock, then the next sweep takes it", async () => {
    // A sweep that took the lease for its minute and died without giving it back.
    const crashed = await takeSweepLease('crashed-sweep', current, new Date(current.getTime() + 60_000));
    expect(crashed).toMatchObject({ holder: 'crashed-sweep' });
    await putDueTenant();
    advance(59);
    const during = await handler({}, lambdaContext);
    expect(skipped(during)).toBe(true);
    expect((await leaseItem())?.holder).toBe('crashed-sweep');
    advance(1);
    const after = await handler({}, lambdaContext);
    expect(skipped(after)).toBe(false);
    expect((after as SweepSummary).reconciled).toBe(1);
    expect(await leaseItem()).toBeUndefined();
  });
});
