import { authRefusals } from './auth.ts';
import { billingRefusals } from './billing.ts';
import { refuserOf } from './catalog.ts';
import { commonRefusals } from './common.ts';
import { credentialsRefusals } from './credentials.ts';
import { exportsRefusals } from './exports.ts';
import { httpRefusals } from './http.ts';
import { planChangesRefusals } from './plan-changes.ts';
import { processorRefusals } from './processor.ts';
import { stacksRefusals } from './stacks.ts';
import { tenantsRefusals } from './tenants.ts';
import { webhooksRefusals } from './webhooks.ts';

/**
 * The refusal vocabulary of the API: every area's catalog, each code in exactly one
 * (test/unit/refusal-catalog.test.ts). A use case raises a refusal by code (`refuse`): the catalog
 * gives its kind and its words; the HTTP edge gives the status (functions/http/refusal-status.ts);
 * the OpenAPI document (lib/openapi/refusals.ts) and the console (lib/console/refusal-codes.js,
 * generated) read the same entries.
 */
export const REFUSAL_AREAS = {
  common: commonRefusals,
  http: httpRefusals,
  auth: authRefusals,
  tenants: tenantsRefusals,
  billing: billingRefusals,
  stacks: stacksRefusals,
  'plan-changes': planChangesRefusals,
  credentials: credentialsRefusals,
  exports: exportsRefusals,
  webhooks: webhooksRefusals,
  processor: processorRefusals,
} as const;

export const REFUSALS = {
  ...commonRefusals,
  ...httpRefusals,
  ...authRefusals,
  ...tenantsRefusals,
  ...billingRefusals,
  ...stacksRefusals,
  ...planChangesRefusals,
  ...credentialsRefusals,
  ...exportsRefusals,
  ...webhooksRefusals,
  ...processorRefusals,
} as const;
export type RefusalCode = keyof typeof REFUSALS;

/** THE way a use case refuses: `throw refuse('stack_not_found', { stackId })`. */
export const refuse = refuserOf(REFUSALS);
