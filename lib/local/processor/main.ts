import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { clockStateFile } from '../../local-data.ts';
import { listenOn } from '../ports.ts';
import { ProcessorEmulator, StripeApiError } from './emulator.ts';
import { LOCAL_WEBHOOK_SECRET } from './local.ts';

/**
 * The processor emulator as a process of its own (`node lib/local/processor/main.ts --data-dir X
 * --webhook-url U`): an outside service that outlives the control plane's process, as the
 * processor does, for the crash run (test/crash/run.ts) and `npm start -- --processor-url`. Its
 * state is kept in the data folder's processor.json; its time is the control plane's clock
 * (the data folder's clock.json, read again whenever it changes). Besides the API and the hosted
 * pages, a control port answers what the in-process emulator is asked directly:
 *   POST /pay  {"sessionId","card"}   pays a Checkout Session (the hosted page's form), webhooks flushed
 *   POST /tick                         bills what came due at the clock's time, webhooks flushed
 *   GET  /state                        the emulator's records (subscriptions, invoices...) as JSON
 * Prints one JSON line once listening: {"url": <API>, "control": <control port's URL>}.
 */
const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    port: { type: 'string', default: '0' },
    'control-port': { type: 'string', default: '0' },
    'webhook-url': { type: 'string' },
  },
});
const dataDirectory = values['data-dir'];
if (!dataDirectory) {
  console.error(
    'Usage: node lib/local/processor/main.ts --data-dir <folder> [--webhook-url <url>] [--port 0]',
  );
  process.exit(2);
}

/** The control plane's clock, followed: real time plus the offset it last saved. */
const clockFile = clockStateFile(dataDirectory);
let offset = { mtimeMs: -1, offsetMs: 0 };
const now = (): Date => {
  if (existsSync(clockFile)) {
    const { mtimeMs } = statSync(clockFile);
    if (mtimeMs !== offset.mtimeMs) {
      try {
        const saved = JSON.parse(readFileSync(clockFile, 'utf8')) as { offsetMs?: number };
        offset = { mtimeMs, offsetMs: typeof saved.offsetMs === 'number' ? saved.offsetMs : 0 };
      } catch {
        // Read while being written: the last offset holds until the next read.
      }
    }
  }
  return new Date(Date.now() + offset.offsetMs);
};

const emulator = new ProcessorEmulator({
  now,
  stateFile: path.join(dataDirectory, 'processor.json'),
  ...(values['webhook-url'] ? { webhook: { url: values['webhook-url'], secret: LOCAL_WEBHOOK_SECRET } } : {}),
});
const url = await emulator.start(Number(values.port));

const control = createServer((request, response) => {
  const answer = (status: number, body: unknown) =>
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', async () => {
    try {
      const pathname = new URL(request.url ?? '/', 'http://localhost').pathname;
      if (request.method === 'GET' && pathname === '/state') {
        emulator.tick();
        return answer(200, emulator.state);
      }
      if (request.method === 'POST' && pathname === '/tick') {
        emulator.tick();
        await emulator.flushWebhooks();
        return answer(200, { now: now().toISOString() });
      }
      if (request.method === 'POST' && pathname === '/pay') {
        const { sessionId, card } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          sessionId: string;
          card: string;
        };
        try {
          emulator.tick();
          const result = emulator.payCheckout(sessionId, card);
          return answer(result.ok ? 200 : 402, result);
        } catch (error) {
          if (error instanceof StripeApiError)
            return answer(error.code === 'resource_missing' ? 404 : 409, { error: error.message });
          throw error;
        } finally {
          await emulator.flushWebhooks();
        }
      }
      answer(404, { error: 'unknown control route' });
    } catch (error) {
      answer(500, { error: String(error) });
    }
  });
});
const controlUrl = `http://127.0.0.1:${await listenOn(control, Number(values['control-port']), '127.0.0.1')}`;
console.log(JSON.stringify({ url, control: controlUrl }));

const stop = () => {
  control.close();
  emulator.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
