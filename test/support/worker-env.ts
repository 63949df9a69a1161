import { randomUUID } from 'node:crypto';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, inject } from 'vitest';
import { createProcessorQueues } from '../../lib/local/cloud.ts';
import { ensureTable } from '../../lib/local/dynamodb.ts';

// Point every AWS SDK client of this worker at the stand-ins started by the global setup
// (test-environment.ts sets the deployment settings).
Object.assign(process.env, inject('localCloudEnvironment'));

/*
 * Each test file gets a table and an intake queue of its own. The sweep reads a due index over
 * the whole table and drains the whole queue, so with one shared table a file's sweeps would
 * also reconcile, email and count other files' tenants (and be slowed by them). Nothing is shared
 * between files but the stand-ins' processes.
 */
const ownTable = `it-${randomUUID().slice(0, 8)}`;
await ensureTable(process.env.AWS_ENDPOINT_URL_DYNAMODB ?? '', ownTable);
process.env.TABLE_NAME = ownTable;
const queues = await createProcessorQueues(
  process.env.AWS_ENDPOINT_URL_SQS ?? '',
  `intake-${ownTable.slice(3)}`,
);
process.env.PROCESSOR_EVENTS_QUEUE_URL = queues.events;
process.env.PROCESSOR_EVENTS_DLQ_URL = queues.deadLetters;

// Registered first, so it runs after the file's own afterAll hooks (which stop its workflows).
afterAll(async () => {
  const client = new DynamoDBClient({});
  try {
    await client.send(new DeleteTableCommand({ TableName: ownTable }));
  } finally {
    client.destroy();
  }
});
