import { describe, expect, it } from 'vitest';
import { httpHandler } from '../../functions/http/handler.ts';
import { type AdapterRoute, LocalApiGateway } from '../../lib/local/http-adapter.ts';

/**
 * The local gateway runs a bounded number of API requests at once (`npm run test:load`: with 100
 * requests under way in one process, each handler's 10 s ran out waiting for the others' work and
 * answered 500). A request's time starts when it is let in, as a Lambda invocation's does.
 */

const never = async () => ({ isAuthorized: false });
let inside = 0;
let most = 0;
/** A handler that works 100 ms of its own (the event loop held 10 ms at a time), given `timeoutMs`. */
const working = (path: string, timeoutMs: number): AdapterRoute => ({
  method: 'GET',
  path,
  auth: 'none',
  timeoutMs,
  handler: httpHandler({ auth: 'none' }, async () => {
    inside++;
    most = Math.max(most, inside);
    try {
      for (let slice = 0; slice < 10; slice++) {
        const until = performance.now() + 10;
        while (performance.now() < until) {
          // the handler's own work
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      inside--;
    }
    return { status: 200, body: { done: true } };
  }),
});
const get = (gateway: LocalApiGateway, url: string) =>
  gateway.dispatch({ method: 'GET', url, headers: {}, body: Buffer.alloc(0), sourceIp: '127.0.0.1' });

describe('the local gateway under many requests at once', () => {
  it('20 requests of 100 ms each, 1 s allowed: at most 2 run at once, and none runs out of time', async () => {
    inside = 0;
    most = 0;
    const gateway = new LocalApiGateway([working('/v1/work', 1000)], never, 2);
    // All at once, every handler would share the event loop with 19 others: 2 s each, past its 1 s.
    const answers = await Promise.all(Array.from({ length: 20 }, () => get(gateway, '/v1/work')));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(most).toBe(2);
  }, 30_000);

  it('a /_local/ route is a tool, not a Lambda: it is never held behind API requests', async () => {
    inside = 0;
    most = 0;
    const gateway = new LocalApiGateway([working('/v1/work', 5000), working('/_local/work', 5000)], never, 1);
    const api = Array.from({ length: 3 }, () => get(gateway, '/v1/work'));
    const local = get(gateway, '/_local/work');
    expect((await local).status).toBe(200);
    // The local one ran beside the API request that was in.
    expect(most).toBe(2);
    await Promise.all(api);
  });
});
