import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { API_GATEWAY_MAX_BODY_BYTES } from '../../lib/local/http-adapter.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import { uniqueLogin } from '../support/gateway.ts';
import { sleep } from '../support/wait.ts';
import { eventPayload, signatureOf } from '../support/webhooks.ts';

/**
 * The local API's connections, as `npm run test:load` found them under load: an oversized body
 * gets its 413 (not a write error), and a keep-alive connection idle for longer than Node's agent
 * keeps one (5 s) and than the server's old limit (Node's default 5 s, plus its 1 s buffer) is
 * still served: the client, not the server, ends an idle connection.
 */

const { api } = gatewayForFile();

const MB = 1024 * 1024;

describe('an oversized body', () => {
  it('sent slowly to the webhook route, signed, with no Content-Length: the client reads 413, no EPIPE', async () => {
    // A signed event padded 4 MB past API Gateway's 10 MB, sent 1 MB at a time: the client is
    // still writing when the server knows the answer.
    const payload = eventPayload(api, 'customer.updated', {
      padding: 'x'.repeat(API_GATEWAY_MAX_BODY_BYTES + 4 * MB),
    });
    const bytes = Buffer.from(payload);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (sent >= bytes.length) return controller.close();
        await sleep(10);
        controller.enqueue(bytes.subarray(sent, sent + MB));
        sent += MB;
      },
    });
    const response = await fetch(`${api.apiUrl}/v1/webhooks/processor`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': signatureOf(api, payload) },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
    expect(response.headers.get('connection')).toBe('close');
    expect(await response.json()).toEqual({ message: 'Request Entity Too Large' });
  });

  it('announced by Content-Length and written while the answer is already known: 413, no EPIPE', async () => {
    const status = await new Promise<string>((resolve, reject) => {
      const url = new URL(api.apiUrl);
      const socket = connect(Number(url.port), url.hostname);
      let answer = '';
      socket.on('data', (chunk) => {
        answer += chunk.toString('latin1');
      });
      socket.on('end', () => resolve(answer.split('\r\n')[0] ?? ''));
      socket.on('error', reject);
      const size = API_GATEWAY_MAX_BODY_BYTES + 2 * MB;
      socket.write(
        `POST /v1/webhooks/processor HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`,
      );
      void (async () => {
        for (let written = 0; written < size; written += MB) {
          await sleep(10);
          if (!socket.write(Buffer.alloc(Math.min(MB, size - written), 0x20)))
            await new Promise((drained) => socket.once('drain', drained));
        }
      })().catch(reject);
    });
    expect(status).toMatch(/^HTTP\/1\.1 413 /);
  });
});

describe('keep-alive', () => {
  it('a request on a connection idle for 7 s (past the old server limit: 5 s and Node’s 1 s buffer) is answered', async () => {
    const { sessionToken } = await api.signIn(uniqueLogin());
    const url = new URL(api.apiUrl);
    const socket = connect(Number(url.port), url.hostname);
    const answers: string[] = [];
    let buffered = '';
    let closed = false;
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      // One whole answer: headers and a Content-Length body.
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = Number(/content-length: (\d+)/i.exec(buffered.slice(0, end))?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        answers.push(buffered.slice(0, end));
        buffered = buffered.slice(end + 4 + length);
      }
    });
    socket.on('close', () => {
      closed = true;
    });
    socket.on('error', () => undefined);
    const ask = async () => {
      const before = answers.length;
      socket.write(
        `GET /v1/billing/plans HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${sessionToken}\r\n\r\n`,
      );
      for (let waited = 0; answers.length === before && !closed && waited < 10_000; waited += 20)
        await sleep(20);
      return answers[before]?.split('\r\n')[0];
    };
    expect(await ask()).toBe('HTTP/1.1 200 OK');
    // Node's agent keeps an idle socket 5 s: the server keeps it much longer (and says 5 s).
    expect(answers[0]).toMatch(/keep-alive: timeout=5/i);
    await sleep(7_000);
    expect(closed).toBe(false);
    expect(await ask()).toBe('HTTP/1.1 200 OK');
    socket.destroy();
  }, 20_000);
});
