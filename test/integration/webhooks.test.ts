import {
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { processorQueueStatus } from '#ports/queue.ts';
import { ProcessorEmulator } from '../../lib/local/processor/emulator.ts';
import { LOCAL_WEBHOOK_SECRET } from '../../lib/local/processor/local.ts';
import { standInQueueCounts } from '../../lib/local-data.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import { waitFor } from '../support/wait.ts';
import { eventPayload, signatureOf } from '../support/webhooks.ts';

const { api } = gatewayForFile({ processor: true });
// The catalog's events of the start (products and prices synced) are not this file's.
beforeAll(() => api.drainQueue());

const nowSeconds = () => Math.floor(api.clock.now().getTime() / 1000);

const anEvent = (type = 'invoice.paid') => eventPayload(api, type, { id: 'in_test', object: 'invoice' });

const deliver = (payload: string, signature: string | undefined, contentType = 'application/json') =>
  api.call('POST', '/v1/webhooks/processor', {
    rawBody: payload,
    headers: { 'content-type': contentType, ...(signature ? { 'stripe-signature': signature } : {}) },
  });

describe('POST /v1/webhooks/processor', () => {
  it('a correctly signed event is answered 200 and put on the queue exactly as received', async () => {
    const payload = anEvent();
    const response = await deliver(payload, signatureOf(api, payload));
    expect(response.status).toBe(200);
    const queued = await api.drainQueue();
    expect(queued).toEqual([JSON.parse(payload)]);
  });

  it('verifies a body API Gateway delivered base64-encoded', async () => {
    const payload = anEvent();
    const response = await deliver(payload, signatureOf(api, payload), 'application/octet-stream');
    expect(response.status).toBe(200);
    expect(await api.drainQueue()).toHaveLength(1);
  });

  it('answers 2xx to event types the reconciler ignores', async () => {
    const payload = anEvent('customer.tax_id.created');
    const response = await deliver(payload, signatureOf(api, payload));
    expect(response.status).toBe(200);
    await api.drainQueue();
  });

  it.each([
    ['unsigned', (payload: string) => ({ payload, signature: undefined }), 'missing_signature'],
    [
      'tampered',
      (payload: string) => ({
        payload: payload.replace('invoice.paid', 'invoice.voided'),
        signature: signatureOf(api, payload),
      }),
      'invalid_signature',
    ],
    [
      'signed with another secret',
      (payload: string) => ({
        payload,
        signature: signatureOf(api, payload, { secret: 'whsec_someone_else' }),
      }),
      'invalid_signature',
    ],
    [
      'stale (signed 10 minutes ago)',
      (payload: string) => ({
        payload,
        signature: signatureOf(api, payload, { secondsAgo: 600 }),
      }),
      'invalid_signature',
    ],
    ['garbage signature', (payload: string) => ({ payload, signature: 'v1=abc' }), 'invalid_signature'],
  ])('a %s event is refused with 400 and nothing is enqueued', async (_label, make, code) => {
    const { payload, signature } = make(anEvent());
    const response = await deliver(payload, signature);
    expect(response.status).toBe(400);
    expect(response.json.error.code).toBe(code);
    expect(await api.drainQueue()).toEqual([]);
  });

  it.each([
    ['not JSON', 'this is not json'],
    ['empty', ''],
    ['truncated JSON', '{"id":"evt_1","type":'],
  ])(
    'a correctly signed body that is %s is 400 invalid_payload (not invalid_signature), nothing enqueued',
    async (_label, payload) => {
      const response = await deliver(payload, signatureOf(api, payload));
      expect(response.status).toBe(400);
      expect(response.json.error.code).toBe('invalid_payload');
      expect(response.json.error.message).toContain('not JSON');
      expect(await api.drainQueue()).toEqual([]);
    },
  );

  it.each([
    ['an empty object', {}],
    ['without an id', { object: 'event', type: 'invoice.paid', data: { object: { id: 'in_1' } } }],
    ['without a type', { id: 'evt_no_type', object: 'event', data: { object: { id: 'in_1' } } }],
    ['without data', { id: 'evt_no_data', object: 'event', type: 'invoice.paid' }],
    ['without data.object', { id: 'evt_no_object', type: 'invoice.paid', data: {} }],
    ['with a null data.object', { id: 'evt_null', type: 'invoice.paid', data: { object: null } }],
    ['with a numeric id', { id: 42, type: 'invoice.paid', data: { object: { id: 'in_1' } } }],
    ['an array', [1, 2, 3]],
    ['null', null],
    ['a string', 'evt_1'],
  ])(
    'a correctly signed JSON body that is %s is 400 invalid_payload, nothing enqueued',
    async (_label, body) => {
      const payload = JSON.stringify(body);
      const response = await deliver(payload, signatureOf(api, payload));
      expect(response.status).toBe(400);
      expect(response.json.error.code).toBe('invalid_payload');
      expect(response.json.error.message).toContain('data.object');
      expect(await api.drainQueue()).toEqual([]);
    },
  );

  it('while the webhook secret is still the generated placeholder: a 500 (the processor retries), never invalid_signature, nothing queued', async () => {
    const saved = process.env.PROCESSOR_WEBHOOK_SECRET;
    // What CloudFormation generates for a secret with no value.
    process.env.PROCESSOR_WEBHOOK_SECRET = 'a8$Q!x2)Zk9^Lm3;Pq7&Wr4%Ts6*Vb1#';
    try {
      const payload = anEvent();
      const response = await deliver(payload, signatureOf(api, payload));
      expect(response.status).toBe(500);
      expect(JSON.stringify(response.json)).not.toContain('a8$Q');
      expect(await api.drainQueue()).toEqual([]);
    } finally {
      process.env.PROCESSOR_WEBHOOK_SECRET = saved;
    }
    const payload = anEvent();
    expect((await deliver(payload, signatureOf(api, payload))).status).toBe(200);
    expect(await api.drainQueue()).toHaveLength(1);
  });

  it('an unsigned body that is not JSON is still invalid_signature: the shape is checked only once the signature holds', async () => {
    const response = await deliver(
      'not json',
      ProcessorEmulator.signature('other', LOCAL_WEBHOOK_SECRET, nowSeconds()),
    );
    expect(response.status).toBe(400);
    expect(response.json.error.code).toBe('invalid_signature');
    expect(await api.drainQueue()).toEqual([]);
  });

  it('the emulator’s own deliveries arrive verified', async () => {
    const emulator = api.emulator;
    if (!emulator) throw new Error('no emulator');
    emulator.route('POST', '/v1/customers', { email: 'x@example.test' });
    const coupon = emulator.route('POST', '/v1/coupons', { percent_off: '5', duration: 'once' });
    expect(coupon).toBeDefined();
    const tenant = await api.readyTenant();
    const { json } = await api.call('POST', '/v1/billing/checkout', {
      token: tenant.sessionToken,
      body: { plan: 'standard' },
    });
    await api.call('POST', '/_local/clock/advance', { body: { seconds: 60 } });
    await fetch(json.url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'card_number=4242424242424242&action=pay',
      redirect: 'manual',
    });
    await emulator.flushWebhooks();
    const delivered = emulator.delivered.slice(-5);
    expect(delivered.every((d) => d.status === 200)).toBe(true);
    expect((await api.drainQueue()).length).toBeGreaterThanOrEqual(5);
  });
});

describe('an event the sweep could not apply', () => {
  it('comes back after 2 s (the retry rule), not after the queue’s 2-minute visibility timeout', async () => {
    const sqs = new SQSClient({});
    const queue = api.queueUrl;
    try {
      await sqs.send(new SendMessageCommand({ QueueUrl: queue, MessageBody: 'this is not an event' }));
      const summary = await api.sweep();
      expect(summary.intake.failed).toBe(1);
      expect(await processorQueueStatus(standInQueueCounts)).toMatchObject({ waiting: 0, inFlight: 1 });
      // Visible again long before the timeout: only our ChangeMessageVisibility can have done that.
      await waitFor(
        'the event visible again',
        async () => (await processorQueueStatus(standInQueueCounts)).waiting === 1,
        {
          everyMs: 250,
          rounds: 60,
        },
      );
      const { Messages } = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queue,
          MaxNumberOfMessages: 1,
          MessageSystemAttributeNames: ['All'],
        }),
      );
      expect(Messages?.[0]?.Body).toBe('this is not an event');
      expect(Messages?.[0]?.Attributes?.ApproximateReceiveCount).toBe('2');
      await sqs.send(
        new DeleteMessageCommand({ QueueUrl: queue, ReceiptHandle: Messages?.[0]?.ReceiptHandle }),
      );
    } finally {
      sqs.destroy();
    }
  });
});
