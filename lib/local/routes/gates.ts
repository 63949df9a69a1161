import * as v from 'valibot';
import { httpHandler } from '../../../functions/http/handler.ts';
import { config, PLAN_CHANGE_GATES } from '../../../functions/ports/config.ts';
import type { AdapterRoute } from '../http-adapter.ts';

/** `POST /_local/plan-change-gates`: which of the Plan Change gates are ready. */
export const gatesRoute: AdapterRoute = {
  method: 'POST',
  path: '/_local/plan-change-gates',
  auth: 'none',
  // PLAN_CHANGE_GATES_READY of a running server, so one server shows the console with a gate down
  // and up (the API reads the gates on every request).
  handler: httpHandler(
    {
      auth: 'none',
      body: v.strictObject({
        ready: v.pipe(
          v.array(v.picklist(PLAN_CHANGE_GATES, `one of ${PLAN_CHANGE_GATES.join(', ')}`)),
          v.maxLength(PLAN_CHANGE_GATES.length),
        ),
      }),
    },
    async ({ body }) => {
      process.env.PLAN_CHANGE_GATES_READY = body.ready.join(',');
      return { status: 200, body: { gates: config.planChangeGates() } };
    },
  ),
};
