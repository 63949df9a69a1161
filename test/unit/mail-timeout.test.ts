import { createServer, type Server } from 'node:http';
import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sesRequestHandler } from '#ports/mail.ts';

/**
 * A send that SES holds without answering ends at the request timeout (issue 25's chaos run: the
 * SDK's `requestTimeout` alone only logs a warning and waits for ever, so one held send kept a
 * sweep waiting past the outbox lease). The port's own HTTP options, with a short timeout.
 */
let server: Server;
let endpoint = '';
const held: { destroy(): void }[] = [];

beforeAll(async () => {
  server = createServer((request) => {
    held.push(request.socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  endpoint = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(async () => {
  for (const socket of held) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
});

describe("the mail port's request timeout", () => {
  it('ends a send SES never answers, with a timeout error', async () => {
    const client = new SESv2Client({
      endpoint,
      region: 'eu-west-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'y' },
      maxAttempts: 1,
      requestHandler: sesRequestHandler(300),
    });
    const send = client.send(
      new SendEmailCommand({
        FromEmailAddress: 'a@example.test',
        Destination: { ToAddresses: ['b@example.test'] },
        Content: { Simple: { Subject: { Data: 's' }, Body: { Text: { Data: 't' } } } },
      }),
    );
    const outcome = await Promise.race([
      send.then(
        () => 'answered',
        (error: Error) => error.name,
      ),
      new Promise((resolve) => setTimeout(() => resolve('still waiting'), 5_000)),
    ]);
    client.destroy();
    expect(outcome).toBe('TimeoutError');
  });
});
