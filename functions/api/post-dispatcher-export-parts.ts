import * as v from 'valibot';
import { MAX_PART_URLS_PER_REQUEST, MAX_PARTS } from '#core/exports.ts';
import { httpHandler } from '#http/handler.ts';
import { exportPartUrls } from '../exports/dispatcher.ts';

/** POST /v1/dispatcher/exports/{exportId}/parts: presigned URLs to PUT the archive's parts to. */
export const handler = httpHandler(
  {
    auth: 'dispatcher',
    body: v.strictObject({
      partNumbers: v.pipe(
        v.array(
          v.pipe(
            v.number(),
            v.integer('whole part numbers'),
            v.minValue(1, `part numbers from 1 to ${MAX_PARTS}`),
            v.maxValue(MAX_PARTS, `part numbers from 1 to ${MAX_PARTS}`),
          ),
        ),
        v.minLength(1, 'at least one part number'),
        v.maxLength(MAX_PART_URLS_PER_REQUEST, `at most ${MAX_PART_URLS_PER_REQUEST} part numbers at a time`),
      ),
    }),
  },
  async ({ principal, pathParameters, body, now }) => ({
    status: 200,
    body: await exportPartUrls({
      ...principal,
      exportId: pathParameters.exportId ?? '',
      partNumbers: body.partNumbers,
      now,
    }),
    headers: { 'cache-control': 'no-store' },
  }),
);
