import { describe, expect, it } from 'vitest';
import { httpHandler } from '../../functions/http/handler.ts';
import { AdjustableClock } from '../../lib/local/clock.ts';
import { type AdapterRoute, LocalApiGateway } from '../../lib/local/http-adapter.ts';
import { localRoutes } from '../../lib/local/routes/index.ts';
import type { LocalSweeper } from '../../lib/local/sweeper.ts';

/**
 * The time `npm start` gives a route's handler: an API Lambda's 10 s, unless the route says
 * otherwise. The sweep route is the reconciler's (its Lambda has 60 s): a sweep after a month of
 * time travel over many tenants took more than 10 s and answered 500 (the handler's timeout). The
 * clock's advance waits for the renewals it bills to reach the intake: on a long e2e run's shared
 * server that took more than 10 s too (120 s).
 */

const never = async () => ({ isAuthorized: false });
const slow = (ms: number) =>
  httpHandler({ auth: 'none' }, async () => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return { status: 200, body: { done: true } };
  });
const route = (path: string, ms: number, timeoutMs?: number): AdapterRoute => ({
  method: 'POST',
  path,
  auth: 'none',
  handler: slow(ms),
  ...(timeoutMs === undefined ? {} : { timeoutMs }),
});
const post = (gateway: LocalApiGateway, url: string) =>
  gateway.dispatch({ method: 'POST', url, headers: {}, body: Buffer.alloc(0), sourceIp: '127.0.0.1' });

describe("a local route's time", () => {
  it('a handler slower than its route allows answers 500; the same with more time answers 200', async () => {
    const gateway = new LocalApiGateway(
      [route('/_local/short', 400, 150), route('/_local/long', 400, 2000)],
      never,
    );
    expect((await post(gateway, '/_local/short')).status).toBe(500);
    expect((await post(gateway, '/_local/long')).status).toBe(200);
  });

  it('the sweep is given the reconciler’s 60 s, the clock’s advance 120 s, every other local route an API request’s 10 s', () => {
    const routes = localRoutes(new AdjustableClock(), {} as LocalSweeper);
    const sweep = routes.find((r) => r.path === '/_local/sweep' && r.method === 'POST');
    const advance = routes.find((r) => r.path === '/_local/clock/advance' && r.method === 'POST');
    expect(sweep?.timeoutMs).toBe(60_000);
    expect(advance?.timeoutMs).toBe(120_000);
    expect(routes.filter((r) => r !== sweep && r !== advance).every((r) => r.timeoutMs === undefined)).toBe(
      true,
    );
  });
});
