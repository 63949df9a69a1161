/**
 * THE route table. The CDK app makes one Lambda function and one HTTP API route per entry; the
 * local control plane serves the same entries through the same authorizer and handlers.
 */

import { NO_TABLE, type TableAccess } from './table-access.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export type SecretName =
  | 'codeHostClientSecret'
  | 'processorApiKey'
  | 'processorWebhookSecret'
  | 'exportsSigningKey';

/** What a route does with the Credentials key: seal new material, or open stored material. */
export type CredentialsKeyUse = 'seal' | 'open';

export interface Route {
  /** Stable id: names the CDK function and the OpenAPI operation. PascalCase. */
  id: string;
  method: HttpMethod;
  /** API Gateway path syntax, `{name}` for a path parameter. */
  path: string;
  /** Module exporting `handler`, relative to the repository root. */
  handler: string;
  /**
   * `session`: a tenant user's session. `dispatcher`: a Stack's Dispatcher credential. Both go
   * through the one authorizer. `iam`: an operator's IAM-signed (SigV4) request, checked by API
   * Gateway's IAM authorizer; no session, and no tenant reaches it (locally, where there is no IAM,
   * it answers 403: operators use `npm run ops`). `none`: public (sign-in, processor webhooks).
   */
  auth: 'session' | 'dispatcher' | 'iam' | 'none';
  /** Why a route with `auth: 'none'` must be public (recorded as the cdk-nag acknowledgement). */
  publicBecause?: string;
  /**
   * What the function does on the table (lib/table-access.ts): the CDK grants exactly these
   * actions and indexes; test/infra/least-privilege.test.ts checks them against the bundle.
   */
  table: TableAccess;
  /** Secrets the function reads; the CDK grants exactly these. */
  secrets?: readonly SecretName[];
  /** Queues the function sends to; the CDK grants exactly these. */
  sendsTo?: readonly 'processorEvents'[];
  /** Starts and stops Plan Change executions; the CDK grants exactly that on the state machine. */
  startsPlanChanges?: boolean;
  /**
   * Seals (`seal`) or opens (`open`) Credentials' secret material (functions/ports/secrets-vault.ts);
   * the CDK grants exactly that use's KMS action on the Credentials key (kms:GenerateDataKey,
   * kms:Decrypt) and sets CREDENTIALS_KEY_ID; test/infra/least-privilege.test.ts reads the use from
   * the bundle.
   */
  usesCredentialsKey?: CredentialsKeyUse;
  /**
   * The export archives' bucket: `upload` makes a multipart upload, presigns its parts for the
   * Dispatcher and completes it; the CDK grants exactly s3:PutObject and s3:GetObject on the
   * bucket's objects and sets EXPORTS_BUCKET.
   */
  exportsBucket?: 'upload';
  /**
   * Signs export download URLs for the console's CloudFront distribution; the CDK sets
   * EXPORTS_DOWNLOAD_BASE_URL and EXPORTS_SIGNING_KEY_PAIR_ID (the key itself is the
   * `exportsSigningKey` secret).
   */
  signsExportDownloads?: boolean;
  summary: string;
  /**
   * The feature area whose nested stack holds the route's resources (lib/infra/constructs/api.ts,
   * routeArea): by default the first segment of its path after `/v1`. Set it for a new route
   * whose area's stack is full (the synth says which); never change it for a deployed route.
   */
  area?: string;
  /**
   * More paths the route answers at: the same function, authorizer and grants, one more HTTP API
   * route each (a route and a permission, no new function). For the specification's own paths
   * where ours differ (docs/decisions.md, "The specification's Credential paths"). `id` names
   * the OpenAPI operation of that path.
   */
  alsoAt?: readonly { path: string; id: string }[];
}

/** Every path a route answers at, each with the id of its operation: its own first, then `alsoAt`. */
export const servedPaths = (route: Route): { path: string; id: string }[] => [
  { path: route.path, id: route.id },
  ...(route.alsoAt ?? []),
];

export const routes: readonly Route[] = [
  {
    id: 'AuthSignIn',
    method: 'GET',
    path: '/v1/auth/sign-in',
    handler: 'functions/api/auth-sign-in.ts',
    auth: 'none',
    publicBecause: 'Sign-in starts here: the caller has no session yet.',
    table: { actions: ['PutItem'] },
    summary: 'Starts the code-host sign-in (redirect)',
  },
  {
    id: 'AuthCallback',
    method: 'GET',
    path: '/v1/auth/callback',
    handler: 'functions/api/auth-callback.ts',
    auth: 'none',
    publicBecause:
      'The code host redirects the browser here before any session exists; the one-time state authenticates it.',
    table: { actions: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'] },
    secrets: ['codeHostClientSecret'],
    summary: 'Completes the code-host sign-in and opens a session',
  },
  {
    id: 'AuthSignOut',
    method: 'POST',
    path: '/v1/auth/sign-out',
    handler: 'functions/api/auth-sign-out.ts',
    auth: 'session',
    table: { actions: ['UpdateItem'] },
    summary: 'Revokes the current session',
  },
  {
    id: 'GetMe',
    method: 'GET',
    path: '/v1/me',
    handler: 'functions/api/get-me.ts',
    auth: 'session',
    table: { actions: ['GetItem', 'Query'] },
    summary:
      'The signed-in user, tenant, role, slug and billing state; when a new account can be started, and the former accounts',
  },
  {
    id: 'PostTenantSlug',
    method: 'POST',
    path: '/v1/tenant/slug',
    handler: 'functions/api/post-tenant-slug.ts',
    auth: 'session',
    table: { actions: ['GetItem', 'PutItem', 'UpdateItem', 'ConditionCheckItem'] },
    summary:
      'Locks the tenant slug (administrators); on an account that has left and is torn down, starts the same person’s new account with it',
  },
  {
    id: 'GetBillingPlans',
    method: 'GET',
    path: '/v1/billing/plans',
    handler: 'functions/api/get-billing-plans.ts',
    auth: 'session',
    table: { actions: ['GetItem', 'Query'] },
    summary: 'The customer Plan catalog with placeability in the Home Region',
  },
  {
    id: 'GetBillingStatus',
    method: 'GET',
    path: '/v1/billing/status',
    handler: 'functions/api/get-billing-status.ts',
    auth: 'session',
    table: { actions: ['GetItem', 'Query'] },
    summary: 'The billing state, the running grace deadline and the history of transitions',
  },
  {
    id: 'GetBillingSummary',
    method: 'GET',
    path: '/v1/billing/summary',
    handler: 'functions/api/get-billing-summary.ts',
    auth: 'session',
    table: { actions: ['GetItem', 'Query', 'UpdateItem'] },
    secrets: ['processorApiKey'],
    summary:
      "This period's invoice per Stack and Plan, the next invoice's date and amount, and the card on file",
  },
  {
    id: 'GetBillingInvoices',
    method: 'GET',
    path: '/v1/billing/invoices',
    handler: 'functions/api/get-billing-invoices.ts',
    auth: 'session',
    table: { actions: ['GetItem', 'Query', 'UpdateItem'] },
    secrets: ['processorApiKey'],
    summary:
      "The invoices, newest first, paged, with refunds and credits and links to each one's page and PDF",
  },
  {
    id: 'GetBillingInvoiceDocument',
    method: 'GET',
    path: '/v1/billing/invoices/{invoiceRef}/{document}',
    handler: 'functions/api/get-billing-invoice-document.ts',
    auth: 'session',
    table: { actions: ['GetItem', 'UpdateItem'] },
    secrets: ['processorApiKey'],
    summary:
      "Redirects (303) to one of the tenant's invoices on the processor: its page (`view`) or its PDF (`pdf`)",
  },
  {
    id: 'PostBillingCheckout',
    method: 'POST',
    path: '/v1/billing/checkout',
    handler: 'functions/api/post-billing-checkout.ts',
    auth: 'session',
    table: { actions: ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'] },
    secrets: ['processorApiKey'],
    summary: "Starts the first subscription on the processor's hosted Checkout (administrators)",
  },
  {
    id: 'PostBillingWaitlist',
    method: 'POST',
    path: '/v1/billing/waitlist',
    handler: 'functions/api/post-billing-waitlist.ts',
    auth: 'session',
    table: { actions: ['GetItem', 'Query', 'PutItem', 'UpdateItem'] },
    summary: 'Joins the waitlist for a Plan (administrators)',
  },
  {
    id: 'PostBillingPortal',
    method: 'POST',
    path: '/v1/billing/portal',
    handler: 'functions/api/post-billing-portal.ts',
    auth: 'session',
    table: { actions: ['GetItem', 'UpdateItem'] },
    secrets: ['processorApiKey'],
    summary: "Opens the processor's hosted Billing Portal (administrators)",
  },
  {
    id: 'PostTenantClose',
    method: 'POST',
    path: '/v1/tenant/close',
    handler: 'functions/api/post-tenant-close.ts',
    auth: 'session',
    table: { actions: ['GetItem', 'UpdateItem', 'DeleteItem'] },
    secrets: ['processorApiKey'],
    summary: 'Closes an account that never paid (administrators; provisioning only)',
  },
  {
    id: 'GetStacks',
    method: 'GET',
    path: '/v1/stacks',
    handler: 'functions/api/get-stacks.ts',
    auth: 'session',
    table: { actions: ['Query'] },
    summary: "The tenant's Stacks: Plan, resources, caps, location, lifecycle, versions, health",
  },
  {
    id: 'PostStacks',
    method: 'POST',
    path: '/v1/stacks',
    handler: 'functions/api/post-stacks.ts',
    auth: 'session',
    table: { actions: ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'] },
    secrets: ['processorApiKey'],
    summary: 'Adds a Stack on a Plan, billed on the same subscription (administrators; Idempotency-Key)',
  },
  {
    id: 'PostStacksPreview',
    method: 'POST',
    path: '/v1/stacks/preview',
    handler: 'functions/api/post-stacks-preview.ts',
    auth: 'session',
    table: { actions: ['GetItem', 'Query', 'UpdateItem'] },
    secrets: ['processorApiKey'],
    summary: "The processor's estimate of adding a Stack, before confirming (administrators)",
  },
  {
    id: 'GetStack',
    method: 'GET',
    path: '/v1/stacks/{stackId}',
    handler: 'functions/api/get-stack.ts',
    auth: 'session',
    table: { actions: ['GetItem'] },
    summary: 'One Stack of the tenant',
  },
  {
    id: 'PostStackDispatcherCredential',
    method: 'POST',
    path: '/v1/stacks/{stackId}/dispatcher-credential',
    handler: 'functions/api/post-stack-dispatcher-credential.ts',
    auth: 'session',
    table: { actions: ['GetItem', 'PutItem', 'UpdateItem'] },
    summary: "Issues or rotates the Stack's Dispatcher credential (administrators)",
  },
  {
    id: 'PostStackProject',
    method: 'POST',
    path: '/v1/stacks/{stackId}/projects',
    handler: 'functions/api/post-stack-project.ts',
    auth: 'session',
    table: { actions: ['GetItem', 'Query', 'PutItem', 'UpdateItem'] },
    summary: 'Registers a Project on a Stack, under its Watched-Projects cap (administrators)',
  },
  {
    id: 'GetStackProjects',
    method: 'GET',
    path: '/v1/stacks/{stackId}/projects',
    handler: 'functions/api/get-stack-projects.ts',
    auth: 'session',
    table: { actions: ['GetItem', 'Query'] },
    summary: "A Stack's Projects and its Watched-Projects cap",
  },
  {
    id: 'DeleteStackProject',
    method: 'DELETE',
    path: '/v1/stacks/{stackId}/projects/{projectId}',
    handler: 'functions/api/delete-stack-project.ts',
    auth: 'session',
    table: { actions: ['GetItem', 'Query', 'UpdateItem', 'DeleteItem'] },
    summary: 'Removes a Project from a Stack (administrators)',
  },
  {
    id: 'PostPlanChangePreview',
    method: 'POST',
    path: '/v1/stacks/{stackId}/plan-changes/preview',
    handler: 'functions/api/post-plan-change-preview.ts',
    auth: 'session',
    table: { actions: ['GetItem', 'Query', 'UpdateItem'] },
    secrets: ['processorApiKey'],
    summary:
      "A Plan Change's preview: both Plans, capacity, the processor's estimate, every refusal (administrators)",
  },
  {
    id: 'PostPlanChange',
    method: 'POST',
    path: '/v1/stacks/{stackId}/plan-changes',
    handler: 'functions/api/post-plan-change.ts',
    auth: 'session',
    table: { actions: ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'] },
    secrets: ['processorApiKey'],
    startsPlanChanges: true,
    summary:
      'Confirms a Plan Change: it starts, or queues for capacity; refusals say why (administrators; Idempotency-Key)',
  },
  {
    id: 'PostPlanChangeCancel',
    method: 'POST',
    path: '/v1/plan-changes/{changeId}/cancel',
    handler: 'functions/api/post-plan-change-cancel.ts',
    auth: 'session',
    table: { actions: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'] },
    startsPlanChanges: true,
    summary: 'Cancels a Plan Change while it waits for capacity or for work (administrators)',
  },
  {
    id: 'GetPlanChanges',
    method: 'GET',
    path: '/v1/plan-changes',
    handler: 'functions/api/get-plan-changes.ts',
    auth: 'session',
    table: { actions: ['GetItem', 'Query'] },
    summary: "The tenant's Plan Changes, newest first; one Stack's with ?stackId=",
  },
  {
    id: 'GetPlanChange',
    method: 'GET',
    path: '/v1/plan-changes/{changeId}',
    handler: 'functions/api/get-plan-change.ts',
    auth: 'session',
    table: { actions: ['GetItem'] },
    summary: "One Plan Change's durable record: Plans, status history, estimate and final adjustment",
  },
  {
    id: 'GetPlanChangesExport',
    method: 'GET',
    path: '/v1/plan-changes/export',
    handler: 'functions/api/get-plan-changes-export.ts',
    auth: 'session',
    table: { actions: ['Query'] },
    summary: 'The Plan Change audit export as JSON Lines (administrators)',
  },
  {
    id: 'PostCredential',
    method: 'POST',
    path: '/v1/credentials/{name}',
    handler: 'functions/api/post-credential.ts',
    auth: 'session',
    table: { actions: ['GetItem', 'PutItem', 'UpdateItem'] },
    usesCredentialsKey: 'seal',
    // The specification's path: `POST {base_url}/credentials/:name`.
    alsoAt: [{ path: '/credentials/{name}', id: 'PostCredentialSpecPath' }],
    summary:
      'Provisions or rotates a Credential of a Stack (administrators; ?stackId=, the first Stack by default)',
  },
  {
    id: 'GetCredentials',
    method: 'GET',
    path: '/v1/credentials',
    handler: 'functions/api/get-credentials.ts',
    auth: 'session',
    table: { actions: ['GetItem', 'Query'] },
    // The specification's path: `GET {base_url}/credentials`.
    alsoAt: [{ path: '/credentials', id: 'GetCredentialsSpecPath' }],
    summary: "A Stack's Credentials (never their material) and its Guide selection (?stackId=)",
  },
  {
    id: 'GetCredentialCatalog',
    method: 'GET',
    path: '/v1/credentials/catalog',
    handler: 'functions/api/get-credential-catalog.ts',
    auth: 'session',
    table: NO_TABLE,
    summary:
      'The Provider catalog: each Provider, its defaults and accepted kinds (consent, Local-only), and the consent text',
  },
  {
    id: 'PostCredentialArchive',
    method: 'POST',
    path: '/v1/credentials/{name}/archive',
    handler: 'functions/api/post-credential-archive.ts',
    auth: 'session',
    table: { actions: ['GetItem', 'PutItem', 'UpdateItem'] },
    summary: 'Archives a Credential: kept, no longer usable (administrators; ?stackId=)',
  },
  {
    id: 'DeleteCredential',
    method: 'DELETE',
    path: '/v1/credentials/{name}',
    handler: 'functions/api/delete-credential.ts',
    auth: 'session',
    table: { actions: ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'] },
    summary:
      'Deletes a Credential: blocked while a route names it, confirmed first when Threads are bound to it (administrators; ?stackId=)',
  },
  {
    id: 'PutProjectCredentialRoutes',
    method: 'PUT',
    path: '/v1/stacks/{stackId}/projects/{projectId}/credential-routes',
    handler: 'functions/api/put-project-credential-routes.ts',
    auth: 'session',
    table: { actions: ['GetItem', 'UpdateItem'] },
    summary:
      "Sets a Project's intake and dispatch Credential Routes: Primary and optional Fallback (administrators)",
  },
  {
    id: 'PutGuideCredential',
    method: 'PUT',
    path: '/v1/stacks/{stackId}/guide-credential',
    handler: 'functions/api/put-guide-credential.ts',
    auth: 'session',
    table: { actions: ['GetItem', 'Query', 'PutItem'] },
    summary: "Selects (or clears) the Stack's Guide Credential (administrators)",
  },
  {
    id: 'PostStackExport',
    method: 'POST',
    path: '/v1/stacks/{stackId}/exports',
    handler: 'functions/api/post-stack-export.ts',
    auth: 'session',
    table: { actions: ['GetItem', 'PutItem', 'UpdateItem'] },
    summary:
      "Starts an export archive of the Stack: its journal and its Threads' unshipped work (administrators; until teardown)",
  },
  {
    id: 'GetStackExports',
    method: 'GET',
    path: '/v1/stacks/{stackId}/exports',
    handler: 'functions/api/get-stack-exports.ts',
    auth: 'session',
    table: { actions: ['GetItem', 'Query'] },
    summary: "A Stack's exports, newest first (at most 20), each as its status read shows it",
  },
  {
    id: 'GetStackExport',
    method: 'GET',
    path: '/v1/stacks/{stackId}/exports/{exportId}',
    handler: 'functions/api/get-stack-export.ts',
    auth: 'session',
    table: { actions: ['GetItem'] },
    summary: "An export's status: requested, building, ready (size, until when) or failed (why)",
  },
  {
    id: 'PostStackExportDownload',
    method: 'POST',
    path: '/v1/stacks/{stackId}/exports/{exportId}/download',
    handler: 'functions/api/post-stack-export-download.ts',
    auth: 'session',
    table: { actions: ['GetItem'] },
    secrets: ['exportsSigningKey'],
    signsExportDownloads: true,
    summary:
      "A short-lived signed download URL of a ready archive, on the console's own site (administrators)",
  },
  {
    id: 'GetDispatcherDesiredState',
    method: 'GET',
    path: '/v1/dispatcher/desired-state',
    handler: 'functions/api/get-dispatcher-desired-state.ts',
    auth: 'dispatcher',
    table: { actions: ['GetItem', 'Query'] },
    summary: "The calling Dispatcher's Stack as it must be (ETag; 304 when unchanged)",
  },
  {
    id: 'PutDispatcherObservedState',
    method: 'PUT',
    path: '/v1/dispatcher/observed-state',
    handler: 'functions/api/put-dispatcher-observed-state.ts',
    auth: 'dispatcher',
    table: { actions: ['GetItem', 'UpdateItem'] },
    summary: 'What the calling Dispatcher applied: version, health, active runs',
  },
  {
    id: 'GetDispatcherCredential',
    method: 'GET',
    path: '/v1/dispatcher/credentials/{name}',
    handler: 'functions/api/get-dispatcher-credential.ts',
    auth: 'dispatcher',
    table: { actions: ['GetItem'] },
    usesCredentialsKey: 'open',
    summary: "A Credential's material, to its own Stack's Dispatcher only, to validate it with the provider",
  },
  {
    id: 'PostDispatcherCredentialValidation',
    method: 'POST',
    path: '/v1/dispatcher/credentials/{name}/validation',
    handler: 'functions/api/post-dispatcher-credential-validation.ts',
    auth: 'dispatcher',
    table: { actions: ['GetItem', 'PutItem', 'UpdateItem'] },
    summary: "The Dispatcher's verdict on a Credential's material: valid, or invalid with the reason",
  },
  {
    id: 'PostDispatcherThread',
    method: 'POST',
    path: '/v1/dispatcher/threads',
    handler: 'functions/api/post-dispatcher-thread.ts',
    auth: 'dispatcher',
    table: { actions: ['GetItem', 'PutItem'] },
    usesCredentialsKey: 'open',
    summary: 'A new Thread: the routed Credential, model and effort, bound for good, and what to inject',
  },
  {
    id: 'PostDispatcherGuideSession',
    method: 'POST',
    path: '/v1/dispatcher/guide-sessions',
    handler: 'functions/api/post-dispatcher-guide-session.ts',
    auth: 'dispatcher',
    table: { actions: ['GetItem', 'PutItem'] },
    usesCredentialsKey: 'open',
    summary: "A Guide Session: the Stack's Guide Credential only, or a precise error",
  },
  {
    id: 'PostDispatcherExportParts',
    method: 'POST',
    path: '/v1/dispatcher/exports/{exportId}/parts',
    handler: 'functions/api/post-dispatcher-export-parts.ts',
    auth: 'dispatcher',
    table: { actions: ['GetItem', 'UpdateItem'] },
    exportsBucket: 'upload',
    summary: "Presigned URLs to upload the parts of the Stack's export archive",
  },
  {
    id: 'PostDispatcherExportOutcome',
    method: 'POST',
    path: '/v1/dispatcher/exports/{exportId}/outcome',
    handler: 'functions/api/post-dispatcher-export-outcome.ts',
    auth: 'dispatcher',
    table: { actions: ['GetItem', 'UpdateItem'] },
    exportsBucket: 'upload',
    summary: 'The export archive is uploaded (its size and parts: the upload is completed) or failed',
  },
  {
    id: 'PostDispatcherBlockingVerdict',
    method: 'POST',
    path: '/v1/dispatcher/blocking-verdict',
    handler: 'functions/api/post-dispatcher-blocking-verdict.ts',
    auth: 'dispatcher',
    table: NO_TABLE,
    summary: 'The blocking verdict for an issue from its three sources',
  },
  {
    id: 'PostOpsRefund',
    method: 'POST',
    path: '/ops/refunds',
    handler: 'functions/api/post-ops-refund.ts',
    auth: 'iam',
    table: { actions: ['GetItem', 'Query', 'PutItem', 'UpdateItem'] },
    secrets: ['processorApiKey'],
    summary:
      "Grants a tenant's money-back refund after its email to support (operators, IAM-signed; locally use npm run ops -- refund)",
  },
  {
    id: 'ProcessorWebhook',
    method: 'POST',
    path: '/v1/webhooks/processor',
    handler: 'functions/webhooks/processor.ts',
    auth: 'none',
    publicBecause:
      "The payment processor calls it; every request is authenticated by the processor's signature on the raw body.",
    // One item of its own: the sweep's nudge window (functions/store/sweep-lease.ts), never a tenant's.
    table: { actions: ['UpdateItem'], leadingKeys: ['SWEEP'] },
    secrets: ['processorWebhookSecret'],
    sendsTo: ['processorEvents'],
    summary: 'Verifies processor webhooks and queues them for the reconciler',
  },
];

/**
 * The session authorizer: not a route, but one more function of the API (its table access:
 * AUTHORIZER_TABLE_ACCESS in lib/table-access.ts).
 */
export const AUTHORIZER_HANDLER = 'functions/http/authorizer.ts';
