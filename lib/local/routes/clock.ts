import * as v from 'valibot';
import { httpHandler } from '../../../functions/http/handler.ts';
import type { AdjustableClock } from '../clock.ts';
import type { AdapterRoute } from '../http-adapter.ts';
import type { ProcessorEmulator } from '../processor/emulator.ts';

const MAX_ADVANCE_SECONDS = 10 * 365 * 86400;

/**
 * `/_local/clock`: GET reads the local clock; `POST /_local/clock/advance` moves it forward and,
 * with the processor emulator, answers once what it billed on the way has reached the intake.
 */
export const clockRoutes = (
  clock: AdjustableClock,
  processor: ProcessorEmulator | undefined,
): AdapterRoute[] => [
  {
    method: 'GET',
    path: '/_local/clock',
    auth: 'none',
    handler: httpHandler({ auth: 'none' }, async ({ now }) => ({
      status: 200,
      body: { now: now.toISOString(), offsetSeconds: clock.offsetSeconds },
    })),
  },
  {
    method: 'POST',
    path: '/_local/clock/advance',
    auth: 'none',
    // Not an API route: it waits for every renewal billed on the way to reach the intake, which
    // on a long e2e run's shared server (hundreds of subscriptions) took longer than an API
    // Lambda's 10 s.
    timeoutMs: 120_000,
    handler: httpHandler(
      {
        auth: 'none',
        body: v.strictObject({
          seconds: v.pipe(
            v.number('a whole number of seconds'),
            v.integer('a whole number of seconds'),
            v.minValue(0, 'a whole number of seconds, 0 or more (time never goes back)'),
            v.maxValue(MAX_ADVANCE_SECONDS, `at most ${MAX_ADVANCE_SECONDS} seconds (ten years)`),
          ),
        }),
      },
      async ({ body }) => {
        const now = clock.advance(body.seconds);
        // What the processor billed on the way (renewals) reaches the intake before this answers.
        await processor?.flushWebhooks();
        return { status: 200, body: { now: now.toISOString(), offsetSeconds: clock.offsetSeconds } };
      },
    ),
  },
];
