import { httpHandler } from '#http/handler.ts';
import { cancelPlanChange } from '../plan-changes/cancel.ts';

/** POST /v1/plan-changes/{changeId}/cancel: cancels a change that still waits (administrators). */
export const handler = httpHandler(
  { auth: 'session', role: 'administrator' },
  async ({ principal, pathParameters, now }) => ({
    status: 200,
    body: await cancelPlanChange({
      tenantId: principal.tenantId,
      changeId: pathParameters.changeId ?? '',
      now,
    }),
  }),
);
