import * as v from 'valibot';
import { HEALTH_VALUES, OPERATION_OUTCOMES } from '#core/dispatcher.ts';
import { httpHandler } from '#http/handler.ts';
import { reportObservedState } from '../stacks/dispatcher.ts';

const count = v.pipe(v.number(), v.integer(), v.minValue(0));

/** A failed step's reason is for operators: short enough to store and show in a log line. */
const OPERATION_REASON_MAX_LENGTH = 500;

/** The outcome of the last Plan Change step the Dispatcher carried out (docs/dispatcher.md). */
const OperationReportSchema = v.strictObject({
  id: v.pipe(
    v.string(),
    v.minLength(1, 'the Plan Change id of the desired state (pc_...)'),
    v.maxLength(200),
  ),
  step: v.picklist(['backup', 'switch', 'verify']),
  outcome: v.picklist(OPERATION_OUTCOMES),
  reason: v.optional(
    v.pipe(
      v.string(),
      v.maxLength(
        OPERATION_REASON_MAX_LENGTH,
        `a reason of at most ${OPERATION_REASON_MAX_LENGTH} characters`,
      ),
    ),
  ),
  addressChanged: v.optional(v.boolean()),
});

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
      operation: v.optional(OperationReportSchema),
    }),
  },
  async ({ principal, body, now }) => ({
    status: 200,
    body: await reportObservedState({ ...principal, report: body, now }),
  }),
);
