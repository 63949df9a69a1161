import * as v from 'valibot';
import { FAILURE_REASON_MAX_LENGTH, MAX_PARTS } from '#core/exports.ts';
import { httpHandler } from '#http/handler.ts';
import { reportExportOutcome } from '../exports/dispatcher.ts';

/** The parts' list rides in this body: 10,000 parts of about 70 bytes each at most. */
export const MAX_OUTCOME_BODY_BYTES = 1024 * 1024;

const Ready = v.strictObject({
  outcome: v.literal('ready'),
  sizeBytes: v.pipe(v.number(), v.integer(), v.minValue(1)),
  parts: v.pipe(
    v.array(
      v.strictObject({
        partNumber: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_PARTS)),
        etag: v.pipe(v.string(), v.minLength(1), v.maxLength(100)),
      }),
    ),
    v.minLength(1, 'at least one part'),
    v.maxLength(MAX_PARTS, `at most ${MAX_PARTS} parts`),
  ),
});

const Failed = v.strictObject({
  outcome: v.literal('failed'),
  reason: v.pipe(
    v.string(),
    v.minLength(1, 'why, in words'),
    v.maxLength(FAILURE_REASON_MAX_LENGTH, `a reason of at most ${FAILURE_REASON_MAX_LENGTH} characters`),
  ),
});

/**
 * POST /v1/dispatcher/exports/{exportId}/outcome: the archive is uploaded (`ready`, with its size
 * and every part's ETag: the control plane completes the upload) or could not be built (`failed`).
 */
export const handler = httpHandler(
  { auth: 'dispatcher', body: v.variant('outcome', [Ready, Failed]), maxBodyBytes: MAX_OUTCOME_BODY_BYTES },
  async ({ principal, pathParameters, body, now }) => ({
    status: 200,
    body: await reportExportOutcome({
      ...principal,
      exportId: pathParameters.exportId ?? '',
      report: body,
      now,
    }),
  }),
);
