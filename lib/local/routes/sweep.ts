import { httpHandler } from '../../../functions/http/handler.ts';
import type { AdapterRoute } from '../http-adapter.ts';
import type { LocalSweeper } from '../sweeper.ts';

/** `/_local/sweep`: GET says when the last sweep completed; POST runs one now. */
export const sweepRoutes = (sweeper: LocalSweeper): AdapterRoute[] => [
  {
    method: 'GET',
    path: '/_local/sweep',
    auth: 'none',
    // When the last sweep completed (wall clock): the local side of the smoke test's "a sweep completed".
    handler: httpHandler({ auth: 'none' }, async () => ({
      status: 200,
      body: { lastCompletedAt: sweeper.lastCompletedAt?.toISOString() ?? null },
    })),
  },
  {
    method: 'POST',
    path: '/_local/sweep',
    auth: 'none',
    // The reconciler's own time (its Lambda has 60 s, the sweep's budget is 50 s), not an API
    // request's 10 s: a sweep after a month of time travel over many tenants takes longer.
    timeoutMs: 60_000,
    handler: httpHandler({ auth: 'none' }, async () => ({ status: 200, body: await sweeper.runNow() })),
  },
];
