import type { Server } from 'node:http';
import {
  ChangeMessageVisibilityCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProcessorQueues, LOCAL_REGION } from '../../lib/local/cloud.ts';
import { localCredentials } from '../../lib/local/dynamodb.ts';
import { closeServer, freePort } from '../../lib/local/ports.ts';
import { startSqsStandIn } from '../../lib/local/sqs.ts';

/**
 * The SQS stand-in answers short polls at once (lib/local/sqs.ts): it works out what is ready
 * itself, so these check that it counts the way SQS does. (How fast it answers is a bench figure.)
 */
describe('the SQS stand-in answers a short poll with what is ready', () => {
  let server: Server;
  let client: SQSClient;
  let queueUrl: string;

  beforeAll(async () => {
    const port = await freePort();
    server = await startSqsStandIn(port, LOCAL_REGION);
    const endpoint = `http://127.0.0.1:${port}`;
    queueUrl = (await createProcessorQueues(endpoint, 'short-poll')).events;
    client = new SQSClient({ endpoint, region: LOCAL_REGION, credentials: localCredentials });
  });
  afterAll(async () => {
    client?.destroy();
    if (server) await closeServer(server);
  });

  const receive = async (max = 10) =>
    (
      await client.send(
        new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: max, WaitTimeSeconds: 0 }),
      )
    ).Messages ?? [];

  it('answers empty when nothing is queued, and every ready message when fewer than asked for', async () => {
    expect(await receive()).toEqual([]);
    for (const body of ['a', 'b', 'c'])
      await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
    const taken = await receive();
    expect(taken.map((message) => message.Body).sort()).toEqual(['a', 'b', 'c']);
    // Received and not deleted: in flight, so not ready again.
    expect(await receive()).toEqual([]);
    // Back in sight: ready again, and no more than asked for.
    for (const message of taken)
      await client.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: queueUrl,
          ReceiptHandle: message.ReceiptHandle,
          VisibilityTimeout: 0,
        }),
      );
    expect(await receive(2)).toHaveLength(2);
    expect(await receive(2)).toHaveLength(1);
  });

  it('does not hand out a delayed message before its delay', async () => {
    await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'later', DelaySeconds: 1 }));
    expect(await receive()).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await receive()).map((message) => message.Body)).toEqual(['later']);
  });

  it("counts receives as SQS does: a visibility change is not a receive, and the SDK's attribute names are read", async () => {
    await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'counted' }));
    const countOnReceive = async () => {
      const { Messages } = await client.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: 1,
          WaitTimeSeconds: 0,
          MessageSystemAttributeNames: ['ApproximateReceiveCount'],
        }),
      );
      const message = Messages?.[0];
      expect(message?.Body).toBe('counted');
      return message as { ReceiptHandle: string; Attributes?: Record<string, string> };
    };
    let message = await countOnReceive();
    expect(message.Attributes?.ApproximateReceiveCount).toBe('1');
    for (const round of [2, 3]) {
      await client.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: queueUrl,
          ReceiptHandle: message.ReceiptHandle,
          VisibilityTimeout: 0,
        }),
      );
      message = await countOnReceive();
      expect(message.Attributes?.ApproximateReceiveCount).toBe(String(round));
    }
  });
});
