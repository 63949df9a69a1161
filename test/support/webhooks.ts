import { createServer } from 'node:http';
import { closeServer, listenOn } from '../../lib/local/ports.ts';
import { ProcessorEmulator } from '../../lib/local/processor/emulator.ts';
import { LOCAL_WEBHOOK_SECRET } from '../../lib/local/processor/local.ts';
import type { TestControlPlane } from './gateway.ts';

const seconds = (api: TestControlPlane) => Math.floor(api.clock.now().getTime() / 1000);

/** An event as the processor sends it, JSON text: `object` in its envelope, created now. */
export const eventPayload = (
  api: TestControlPlane,
  type: string,
  object: unknown,
  id = `evt_test_${Math.random().toString(36).slice(2)}`,
) =>
  JSON.stringify({
    id,
    object: 'event',
    api_version: '2026-10-28.endive',
    created: seconds(api),
    data: { object },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
  });

/** The processor's signature header for `payload`, made now (or `secondsAgo`) with `secret`. */
export const signatureOf = (
  api: TestControlPlane,
  payload: string,
  options: { secret?: string; secondsAgo?: number } = {},
) =>
  ProcessorEmulator.signature(
    payload,
    options.secret ?? LOCAL_WEBHOOK_SECRET,
    seconds(api) - (options.secondsAgo ?? 0),
  );

/** Delivers `payload` to the webhook route, signed as the processor signs it. */
export const deliverSigned = (api: TestControlPlane, payload: string) =>
  api.call('POST', '/v1/webhooks/processor', {
    rawBody: payload,
    headers: { 'content-type': 'application/json', 'stripe-signature': signatureOf(api, payload) },
  });

/**
 * A webhook endpoint of ours on 127.0.0.1 (a free port) for the emulator to deliver to: each
 * delivery's event, parsed, goes to `answer`, whose status code the endpoint answers with. `url`
 * ends in /webhooks; `close` stops the endpoint.
 */
export const webhookEndpoint = async <Event>(answer: (event: Event) => number) => {
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', () => {
      response.writeHead(answer(JSON.parse(body) as Event)).end();
    });
  });
  const port = await listenOn(server, 0, '127.0.0.1');
  return { url: `http://127.0.0.1:${port}/webhooks`, close: () => closeServer(server) };
};
