import { httpHandler } from '#http/handler.ts';
import { listPlanChangeViews } from '../plan-changes/read.ts';

/** GET /v1/plan-changes[?stackId=]: the tenant's Plan Changes, newest first (any member). */
export const handler = httpHandler({ auth: 'session' }, async ({ principal, query }) => ({
  status: 200,
  body: { planChanges: await listPlanChangeViews(principal.tenantId, query.stackId || undefined) },
}));
