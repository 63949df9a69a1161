import * as v from 'valibot';
import { HEALTH_VALUES } from '#core/dispatcher.ts';
import { httpHandler } from '#http/handler.ts';
import { reportObservedState } from '../stacks/dispatcher.ts';

const count = v.pipe(v.number(), v.integer(), v.minValue(0));

/** PUT /v1/dispatcher/observed-state: what the calling Dispatcher applied and sees. */
export const handler = httpHandler(
  {
    auth: 'dispatcher',
    body: v.strictObject({
      appliedVersion: count,
      health: v.picklist(HEALTH_VALUES),
      activeRuns: count,
      localHostExecutor: v.optional(v.boolean(), false),
      tornDown: v.optional(v.boolean(), false),
    }),
  },
  async ({ principal, body, now }) => ({
    status: 200,
    body: await reportObservedState({ ...principal, report: body, now }),
  }),
);
