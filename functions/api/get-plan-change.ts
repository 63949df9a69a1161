import { httpHandler } from '#http/handler.ts';
import { readPlanChange } from '../plan-changes/read.ts';

/** GET /v1/plan-changes/{changeId}: one Plan Change's durable record (any member). */
export const handler = httpHandler({ auth: 'session' }, async ({ principal, pathParameters }) => ({
  status: 200,
  body: await readPlanChange(principal.tenantId, pathParameters.changeId ?? ''),
}));
