import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NUDGE_WINDOW_MS } from '#ports/nudge.ts';
import { lastSweepNudge } from '#store/sweep-lease.ts';
import { nudgeSweep } from '../../functions/reconciler/nudge.ts';
import { ensureTable } from '../../lib/local/dynamodb.ts';

/*
 * Nudges coalesce (issue 23): however many webhooks arrive, the sweep is invoked at most once per
 * NUDGE_WINDOW_MS. The Lambda API is a listener of this file that counts the asynchronous
 * invocations it receives; the window is claimed in a table of this file's own (DynamoDB Local).
 */
const table = `sweep-nudge-${randomUUID().slice(0, 8)}`;
const invocations: { functionName: string; type: string | undefined }[] = [];
let lambda: Server;

beforeAll(async () => {
  await ensureTable(process.env.AWS_ENDPOINT_URL_DYNAMODB ?? '', table);
  process.env.TABLE_NAME = table;
  lambda = createServer((request, response) => {
    const match = /\/functions\/([^/]+)\/invocations/.exec(request.url ?? '');
    if (match?.[1])
      invocations.push({
        functionName: decodeURIComponent(match[1]),
        type: request.headers['x-amz-invocation-type'] as string | undefined,
      });
    request.resume();
    request.on('end', () => {
      response.writeHead(202, { 'content-type': 'application/json' });
      response.end('');
    });
  });
  await new Promise<void>((resolve) => lambda.listen(0, '127.0.0.1', resolve));
  process.env.AWS_ENDPOINT_URL_LAMBDA = `http://127.0.0.1:${(lambda.address() as AddressInfo).port}`;
  process.env.RECONCILER_FUNCTION_NAME = 'reconciler-under-test';
});

afterAll(async () => {
  await new Promise((resolve) => lambda.close(resolve));
  await new DynamoDBClient({}).send(new DeleteTableCommand({ TableName: table }));
});

describe('webhooks wake the sweep at most once per window', () => {
  it('twenty webhooks at once invoke the sweep once; the next window invokes it again', async () => {
    const start = new Date('2026-11-01T12:00:00.000Z');
    const at = (ms: number) => new Date(start.getTime() + ms);
    const burst = await Promise.all(Array.from({ length: 20 }, (_, i) => nudgeSweep(at(i * 50))));
    expect(burst.filter(Boolean)).toHaveLength(1);
    expect(invocations).toEqual([{ functionName: 'reconciler-under-test', type: 'Event' }]);
    // Still within the window of the first: nothing more.
    expect(await nudgeSweep(at(NUDGE_WINDOW_MS - 1))).toBe(false);
    expect(invocations).toHaveLength(1);
    // The window has passed: the next webhook wakes the sweep again, and says when.
    expect(await nudgeSweep(at(NUDGE_WINDOW_MS + 1000))).toBe(true);
    expect(invocations).toHaveLength(2);
    expect(await lastSweepNudge()).toEqual(at(NUDGE_WINDOW_MS + 1000));
  });
});
