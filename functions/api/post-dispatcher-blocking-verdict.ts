import * as v from 'valibot';
import { blockingVerdict } from '#core/blocking.ts';
import { httpHandler } from '#http/handler.ts';

const repository = v.pipe(v.string(), v.regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, 'must be owner/name'));
const issue = v.strictObject({ repository, number: v.pipe(v.number(), v.integer(), v.minValue(1)) });
const state = v.picklist(['open', 'closed']);
const blocker = v.strictObject({ ...issue.entries, state });

/**
 * POST /v1/dispatcher/blocking-verdict: the one blocking rule for every Stack (functions/core/blocking.ts).
 * The three sources for an issue in; the verdict and the open blockers out. Reads and writes nothing.
 */
export const handler = httpHandler(
  {
    auth: 'dispatcher',
    body: v.strictObject({
      issue,
      nativeDependencies: v.optional(v.pipe(v.array(blocker), v.maxLength(500)), []),
      relationshipEdges: v.optional(v.pipe(v.array(blocker), v.maxLength(500)), []),
      body: v.optional(v.pipe(v.string(), v.maxLength(12_000)), ''),
      states: v.optional(v.record(v.pipe(v.string(), v.maxLength(200)), state), {}),
    }),
  },
  async ({ body }) => ({ status: 200, body: blockingVerdict(body) }),
);
