import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { MAX_RECEIVES } from '../../lib/constants.ts';
import { createProcessorQueues } from '../../lib/local/cloud.ts';
import { killed, outliveChildren } from '../support/outlive.ts';
import { sleep, waitFor } from '../support/wait.ts';
import { webhookEndpoint } from '../support/webhooks.ts';

/**
 * The SQS stand-in's messages and the processor emulator's undelivered webhooks outlive a kill
 * (issue 37, item 1): they run in a child process on a data folder
 * (test/support/outlive-child.ts), which is killed with SIGKILL with messages queued, in flight,
 * deleted and about to be dead-lettered, and events not yet delivered, and started again on the
 * folder.
 */

const outlive = outliveChildren('outlive-queue-');

/** Starts the child on the data folder (posting processor events to `webhookUrl`, if given). */
const startChild = async (webhookUrl?: string) => {
  const { child, endpoints } = await outlive.startChild<{ sqs: string; processor: string }>(
    20,
    ...(webhookUrl ? [webhookUrl] : []),
  );
  return { child, ...endpoints };
};

const clientOf = (endpoint: string) =>
  new SQSClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });

/** The queues as the stack makes them (a dead-letter queue after MAX_RECEIVES), on `endpoint`. */
const queuesOn = (endpoint: string, name: string) => createProcessorQueues(endpoint, name, 30);

const receive = async (client: SQSClient, queueUrl: string, visibilityTimeout?: number): Promise<Message[]> =>
  (
    await client.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 0,
        MessageSystemAttributeNames: ['ApproximateReceiveCount'],
        ...(visibilityTimeout === undefined ? {} : { VisibilityTimeout: visibilityTimeout }),
      }),
    )
  ).Messages ?? [];

const IN_FLIGHT_SECONDS = 15;

const bodies = (messages: Message[]) => messages.map((message) => message.Body).sort();
const countOf = (message: Message | undefined) => Number(message?.Attributes?.ApproximateReceiveCount);

describe('the SQS stand-in killed with SIGKILL and started again on the same data folder', () => {
  it('keeps what was queued, brings back what was received and not deleted after its visibility timeout, drops what was deleted, and dead-letters past maxReceiveCount', async () => {
    const first = await startChild();
    const before = clientOf(first.sqs);
    let queues = await queuesOn(first.sqs, 'kept');
    let poison = await queuesOn(first.sqs, 'poison');
    // The poison message: received and let go (visibility 0) MAX_RECEIVES - 1 times, then once
    // more held for 2 s: when that ends, it has reached maxReceiveCount.
    await before.send(new SendMessageCommand({ QueueUrl: poison.events, MessageBody: 'poison' }));
    for (let receives = 1; receives <= MAX_RECEIVES; receives++) {
      const message = await waitFor(
        'the poison message',
        async () => (await receive(before, poison.events, receives < MAX_RECEIVES ? 0 : 2))[0],
      );
      expect(countOf(message)).toBe(receives);
    }
    for (const body of ['deleted', 'in-flight', 'let-go-1', 'let-go-2'])
      await before.send(new SendMessageCommand({ QueueUrl: queues.events, MessageBody: body }));
    // All four received, held in flight for 15 s (longer than a restart takes on a busy machine):
    // one deleted, two let go at once (a visibility change, which SQS does not count as a
    // receive), one left in flight.
    const inFlightSince = Date.now();
    const taken = await receive(before, queues.events, IN_FLIGHT_SECONDS);
    expect(bodies(taken)).toEqual(['deleted', 'in-flight', 'let-go-1', 'let-go-2']);
    for (const message of taken) {
      if (message.Body === 'deleted')
        await before.send(
          new DeleteMessageCommand({ QueueUrl: queues.events, ReceiptHandle: message.ReceiptHandle }),
        );
      if (message.Body?.startsWith('let-go'))
        await before.send(
          new ChangeMessageVisibilityCommand({
            QueueUrl: queues.events,
            ReceiptHandle: message.ReceiptHandle,
            VisibilityTimeout: 0,
          }),
        );
    }
    await before.send(new SendMessageCommand({ QueueUrl: queues.events, MessageBody: 'queued' }));
    await killed(first.child);
    before.destroy();

    const second = await startChild();
    const after = clientOf(second.sqs);
    // The queues made again, as every start does (on another port): their messages are back.
    queues = await queuesOn(second.sqs, 'kept');
    poison = await queuesOn(second.sqs, 'poison');
    // At once: the one never received and the two let go; never the deleted one, and not the one
    // still in flight. The counts are SQS's (the visibility changes not counted).
    expect(Date.now() - inFlightSince).toBeLessThan(IN_FLIGHT_SECONDS * 1000);
    const ready = await receive(after, queues.events, 30);
    expect(bodies(ready)).toEqual(['let-go-1', 'let-go-2', 'queued']);
    expect(Object.fromEntries(ready.map((message) => [message.Body, countOf(message)]))).toEqual({
      'let-go-1': 2,
      'let-go-2': 2,
      queued: 1,
    });
    // Once its 15 s are over, the message received and not deleted is back, received once more.
    const back = await waitFor(
      'the in-flight message back',
      async () => (await receive(after, queues.events, 30))[0],
      // Looks enough to outlast the whole visibility timeout (a fast restart leaves most of it).
      { rounds: IN_FLIGHT_SECONDS * 10 + 100, everyMs: 100 },
    );
    expect(Date.now() - inFlightSince).toBeGreaterThanOrEqual(2000);
    expect([back.Body, countOf(back)]).toEqual(['in-flight', 2]);
    // The poison message reached maxReceiveCount: moved to the dead-letter queue when its
    // visibility ended, after the restart, and not in its queue any more.
    const dead = await waitFor(
      'the poison message dead-lettered',
      async () => (await receive(after, poison.deadLetters, 30))[0],
      {
        rounds: 100,
        everyMs: 100,
      },
    );
    expect(dead.Body).toBe('poison');
    expect(await receive(after, poison.events)).toEqual([]);
    // Nothing else anywhere: the deleted message never came back.
    expect(await receive(after, queues.events)).toEqual([]);
    expect(await receive(after, queues.deadLetters)).toEqual([]);
    after.destroy();
    await killed(second.child);
  }, 60_000);
});

describe('the processor emulator killed with SIGKILL while webhooks wait to be delivered', () => {
  it('delivers them after the restart: the one being retried and the one queued behind it', async () => {
    /** Our webhook endpoint: refuses (500) until told to take them; records every delivery. */
    let accepting = false;
    const deliveries: { id: string; type: string; accepted: boolean }[] = [];
    const endpoint = await webhookEndpoint((event: { id: string; type: string }) => {
      deliveries.push({ id: event.id, type: event.type, accepted: accepting });
      return accepting ? 200 : 500;
    });
    const webhookUrl = endpoint.url;
    try {
      const first = await startChild(webhookUrl);
      const api = (pathname: string, form: Record<string, string>) =>
        fetch(`${first.processor}/v1/${pathname}`, {
          method: 'POST',
          headers: {
            authorization: 'Bearer sk_test_local',
            'content-type': 'application/x-www-form-urlencoded',
          },
          body: new URLSearchParams(form).toString(),
        }).then(async (answer) => {
          expect(answer.status).toBe(200);
          return (await answer.json()) as { id: string };
        });
      const customer = await api('customers', { email: 'webhooks@example.test' });
      const product = await api('products', { name: 'Kept' });
      const price = await api('prices', {
        product: product.id,
        unit_amount: '1000',
        currency: 'eur',
        'recurring[interval]': 'month',
      });
      const session = (name: string) =>
        api('checkout/sessions', {
          mode: 'subscription',
          customer: customer.id,
          success_url: `https://example.test/${name}`,
          'line_items[0][price]': price.id,
          'line_items[0][quantity]': '1',
        });
      const [one, two] = [await session('one'), await session('two')];
      // Two events: the first is refused and retried with backoff; the second waits behind it.
      await api(`checkout/sessions/${one.id}/expire`, {});
      await api(`checkout/sessions/${two.id}/expire`, {});
      await waitFor('a refused delivery', () => deliveries.length > 0);
      await killed(first.child);
      const refused = deliveries.map((delivery) => delivery.id);
      expect(new Set(refused).size).toBe(1);

      accepting = true;
      const second = await startChild(webhookUrl);
      const accepted = await waitFor(
        'both events delivered',
        () => {
          const taken = deliveries.filter((delivery) => delivery.accepted);
          return taken.length >= 2 ? taken : undefined;
        },
        { rounds: 200, everyMs: 50 },
      );
      // In the order they were emitted, each taken once, both of type checkout.session.expired.
      expect(accepted.map((delivery) => delivery.type)).toEqual([
        'checkout.session.expired',
        'checkout.session.expired',
      ]);
      expect(accepted[0]?.id).toBe(refused[0]);
      expect(new Set(accepted.map((delivery) => delivery.id)).size).toBe(2);
      // Settled and saved (the emulator's save after a delivery is a 250 ms timer: a kill before it
      // would deliver them again, which is at least once too): a third start delivers nothing.
      await sleep(600);
      await killed(second.child);
      const third = await startChild(webhookUrl);
      await sleep(600);
      expect(deliveries.filter((delivery) => delivery.accepted)).toHaveLength(2);
      await killed(third.child);
    } finally {
      await endpoint.close();
    }
  }, 60_000);
});
