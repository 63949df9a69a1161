import { httpHandler } from '#http/handler.ts';
import { planChangeExportLines } from '../plan-changes/read.ts';

/** GET /v1/plan-changes/export: the Plan Change audit export as JSON Lines (administrators). */
export const handler = httpHandler({ auth: 'session', role: 'administrator' }, async ({ principal, now }) => {
  let text = '';
  for await (const line of planChangeExportLines(principal.tenantId, now)) text += line;
  return {
    status: 200,
    text,
    headers: {
      'content-type': 'application/x-ndjson; charset=utf-8',
      'content-disposition': 'attachment; filename="plan-changes.jsonl"',
    },
  };
});
