/**
 * THE route table. The CDK app makes one Lambda function and one HTTP API route per entry; the
 * local control plane serves the same entries through the same authorizer and handlers.
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Route {
  /** Stable id: names the CDK function and its log group. PascalCase. */
  id: string;
  method: HttpMethod;
  /** API Gateway path syntax, `{name}` for a path parameter. */
  path: string;
  /** Module exporting `handler`, relative to the repository root. */
  handler: string;
  /** `session`: goes through the session authorizer. `none`: public (sign-in, processor webhooks). */
  auth: 'session' | 'none';
  /** What the function may do on the table; the CDK grants exactly this. */
  table: 'read' | 'readwrite' | 'none';
  summary: string;
}

export const routes: readonly Route[] = [
  {
    id: 'GetBillingPlans',
    method: 'GET',
    path: '/v1/billing/plans',
    handler: 'functions/api/get-billing-plans.ts',
    auth: 'session',
    table: 'read',
    summary: 'The customer Plan catalog with placeability in the Home Region',
  },
];

/** The session authorizer: not a route, but one more function of the API. */
export const AUTHORIZER_HANDLER = 'functions/http/authorizer.ts';
