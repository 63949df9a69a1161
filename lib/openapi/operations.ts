/**
 * The OpenAPI document's prose for each operation of lib/routes.ts, by route id: what
 * lib/openapi/generate.ts cannot read from the code (descriptions, parameters, the answers' schemas
 * and examples, the refusal codes an operation declares beyond those its contract implies).
 */
import type { OperationDocs, Parameter } from './types.ts';

/** A path parameter: a string, with its pattern and its words when it has them. */
const inPath = (name: string, pattern?: string, description?: string): Parameter => ({
  name,
  in: 'path',
  required: true,
  ...(description ? { description } : {}),
  schema: { type: 'string', ...(pattern ? { pattern } : {}) },
});

/** An optional query parameter (a string) and its words. */
const inQuery = (name: string, description: string): Parameter => ({
  name,
  in: 'query',
  required: false,
  description,
  schema: { type: 'string' },
});

/** The parameters several operations take, each stated once. */
const PARAMETER = {
  stackId: inPath('stackId'),
  projectId: inPath('projectId'),
  exportId: inPath('exportId', '^exp_[a-z0-9]{21}$'),
  changeId: inPath(
    'changeId',
    '^pc_[a-z0-9]{1,40}$',
    'The change id (`pc_` and lowercase letters and digits)',
  ),
  credentialName: inPath(
    'name',
    '^[a-z0-9][a-z0-9-]{0,62}$',
    "The Credential's name: 1 to 63 lowercase letters, digits and hyphens, starting with a letter or a digit",
  ),
  stackIdQuery: inQuery(
    'stackId',
    "The Stack the request acts on; without it (or empty), the tenant's first Stack (`primary`). A Stack of another tenant, or none: 404 `stack_not_found`",
  ),
  account: inQuery(
    'account',
    'The slug of one of your former accounts (GET /v1/me `formerAccounts`), to read its billing; left out: your current account.',
  ),
};

/** A refusal an operation declares: the words that say when, and its codes. */
const refusal = (description: string, ...codes: string[]): OperationDocs['refusals'][string] => ({
  description,
  codes,
});

/** The refusals several operations declare alike, each stated once. */
const REFUSAL = {
  dispatcherUnauthenticated: refusal(
    '`dispatcher_credential_required` or `invalid_dispatcher_credential`',
    'dispatcher_credential_required',
    'invalid_dispatcher_credential',
  ),
  stackNotFound: refusal('`stack_not_found`: the tenant has no such Stack', 'stack_not_found'),
  stackIdNotFound: refusal('`stack_not_found`: `stackId` names no Stack of the tenant', 'stack_not_found'),
  credentialNotFound: refusal(
    '`stack_not_found` or `credential_not_found`',
    'stack_not_found',
    'credential_not_found',
  ),
  exportNotFound: refusal('`stack_not_found`, `export_not_found`', 'stack_not_found', 'export_not_found'),
  planChangeNotFound: refusal(
    "`plan_change_not_found`: the tenant has no such Plan Change (another tenant's change, or an id that is not one, answers the same)",
    'plan_change_not_found',
  ),
  accountNotFound: refusal('`account_not_found`: you have no account with this slug', 'account_not_found'),
  processorFailed: refusal(
    '`processor_unavailable` or `processor_error`',
    'processor_unavailable',
    'processor_error',
  ),
  processorReadFailed: refusal(
    '`processor_unavailable` or `processor_error`: the processor did not answer or refused; retry later',
    'processor_unavailable',
    'processor_error',
  ),
};

/** Why a Stack cannot be added now: POST /v1/stacks and its preview refuse alike. */
const STACK_ADD_CODES = [
  'no_capacity',
  'stack_cap_reached',
  'billing_overdue',
  'no_subscription',
  'subscription_not_active',
  'cancellation_scheduled',
  'account_closing',
];

/** A JSON answer: its words; its schema and example are the operation's (lib/openapi/answers.ts). */
const json = (description: string): OperationDocs['answers'][string] => ({
  description,
  content: { 'application/json': {} },
});

export const OPERATIONS: Record<string, OperationDocs> = {
  AuthSignIn: {
    description:
      "Redirects to the code host's authorize page (OAuth 2.0 authorization code with PKCE S256 and a one-time `state` valid 10 minutes), and sets the short-lived `scp_oauth_state` cookie that binds the sign-in to this browser.",
    answers: {
      '302': {
        description: "To the code host's authorize page",
      },
    },
    refusals: {},
  },
  AuthCallback: {
    description:
      'The code host redirects here. On first sign-in the user is created with a new tenant in `provisioning` (Home Region `eu`), the user its administrator. Sets the session cookie. A client that sends `Accept: application/json` gets the token as JSON; a browser is redirected to the tenant app. Nothing is created when the sign-in is refused.',
    parameters: [
      {
        name: 'code',
        in: 'query',
        schema: {
          type: 'string',
        },
      },
      {
        name: 'state',
        in: 'query',
        required: true,
        schema: {
          type: 'string',
        },
      },
      {
        name: 'error',
        in: 'query',
        schema: {
          type: 'string',
        },
      },
    ],
    answers: {
      '200': json('Signed in (JSON clients)'),
      '302': {
        description: 'Signed in; to the tenant app (browsers)',
      },
    },
    refusals: {
      '400': refusal(
        '`invalid_state` (unknown, replayed, or started in another browser), `state_expired`, `code_exchange_failed`, `email_unverified`, `invalid_request`',
        'invalid_state',
        'state_expired',
        'code_exchange_failed',
        'email_unverified',
        'invalid_request',
      ),
      '403': refusal('`sign_in_denied`: consent declined on the code host', 'sign_in_denied'),
      '502': refusal('`code_host_unavailable`', 'code_host_unavailable'),
    },
  },
  AuthSignOut: {
    description: 'The token stops working on the very next request. Clears the session cookie.',
    answers: {
      '204': {
        description: 'Signed out',
      },
    },
    refusals: {},
  },
  GetMe: {
    description:
      "Who is signed in (the user, the tenant and the role), the tenant's slug and billing state, whether a new account can be started, and the person's former accounts. Any member; reads only.",
    answers: {
      '200': json('Who is signed in'),
    },
    refusals: {},
  },
  PostTenantSlug: {
    description:
      "A DNS label: 3 to 40 of lowercase letters, digits and `-`, starting with a letter, not ending with `-`, not reserved (see docs/decisions.md). Unique across all tenants forever and permanent once locked: the same slug again is an idempotent 200. On an account that has left (decommissioning, or a close asked for), the same call starts the same person's new account once the old one is torn down: a new tenant in `provisioning` with this slug (the old slug stays with the old account), the person and this session moved to it, the old account kept readable as a former account. Anyone whose account has left may do this, not only its administrator. A retry with the same slug answers the same success.",
    requestBody: {},
    answers: {
      '200': json('Locked'),
    },
    refusals: {
      '400': refusal(
        '`slug_too_short`, `slug_too_long`, `slug_charset`, `slug_start`, `slug_end`, `slug_hyphens` (`--` as the third and fourth characters, e.g. `xn--`), `slug_reserved`, or a body error',
        'slug_too_short',
        'slug_too_long',
        'slug_charset',
        'slug_start',
        'slug_end',
        'slug_hyphens',
        'slug_reserved',
      ),
      '409': refusal(
        "`slug_locked` (this tenant already has another slug; its `slug` is returned at top level) or `slug_taken` (another tenant holds it); on an account that has left: `new_account_not_yet` (the old account still serves or can be exported: `newAccountFrom` gives from when, null for a close still being carried out), `new_account_exists` (a new account was already started with another slug), or `slug_taken` (also for the old account's own slug)",
        'slug_locked',
        'slug_taken',
        'new_account_not_yet',
        'new_account_exists',
      ),
      '403': refusal(
        '`admin_required`: a member may read the slug but only an administrator locks it',
        'admin_required',
      ),
    },
  },
  GetBillingPlans: {
    description:
      "The same catalog the add-a-Stack picker uses; it can be read before checkout. `placeable` says whether the Plan can be placed now in the caller's Home Region.",
    answers: {
      '200': json('The catalog'),
    },
    refusals: {},
  },
  GetBillingStatus: {
    description:
      'The state is decided only by the reconciler sweep. `graceDeadline` is set while `past-due` (7 days, then `suspended`) or `suspended` (14 days, then `decommissioning`). History reasons: `checkout_completed`, `payment_failed`, `past_due_grace_elapsed`, `suspended_grace_elapsed`, `payment_recovered`, `cancelled_in_portal`.',
    parameters: [PARAMETER.account],
    answers: {
      '200': json('The billing status'),
    },
    refusals: {
      '404': REFUSAL.accountNotFound,
    },
  },
  GetBillingSummary: {
    description:
      "Read from the payment processor (any member of the tenant). `currentInvoice` is the latest issued invoice (one line per Stack and Plan, prorations, discount, tax); `nextInvoice` is the processor's estimate of the next one (null once the subscription ends or the account is closing); `paymentMethod` is display only: the card is changed in the billing portal. All null before the first checkout.",
    parameters: [PARAMETER.account],
    answers: {
      '200': json('What the tenant pays'),
    },
    refusals: {
      '404': REFUSAL.accountNotFound,
      '502': REFUSAL.processorReadFailed,
    },
  },
  GetBillingInvoices: {
    description:
      'Every issued invoice of the tenant, newest first (drafts are not listed), read from the payment processor (any member of the tenant). Refunds and credit used are on the invoice they belong to. Each invoice links to its page and PDF through our own route (`viewUrl`, `pdfUrl`: GET /v1/billing/invoices/{invoiceRef}/{document}); no processor id or address is in the body. Page with `next`: pass it as `cursor` for the next page; null on the last.',
    parameters: [
      {
        name: 'limit',
        in: 'query',
        required: false,
        description: 'Invoices per page, 1 to 25 (default 10)',
        schema: {
          type: 'integer',
          minimum: 1,
          maximum: 25,
        },
      },
      {
        name: 'cursor',
        in: 'query',
        required: false,
        description: 'The `next` of the page before, as given',
        schema: {
          type: 'string',
        },
      },
      PARAMETER.account,
    ],
    answers: {
      '200': json('A page of invoices'),
    },
    refusals: {
      '400': refusal(
        '`invalid_field`: `limit` outside 1 to 25, or a `cursor` that is not a `next` we gave',
        'invalid_field',
      ),
      '404': REFUSAL.accountNotFound,
      '502': REFUSAL.processorReadFailed,
    },
  },
  GetBillingInvoiceDocument: {
    description:
      "The links of an invoice (`viewUrl`, `pdfUrl` of GET /v1/billing/invoices and GET /v1/billing/summary) lead here (any member of the tenant). The processor's address is read now and answered as `Location` of a 303, never in a body. `invoiceRef` is the invoice's `ref`: ours, not the processor's id; only the caller's own invoices are looked at, so another tenant's reference is answered as one we never gave (404).",
    parameters: [
      {
        name: 'invoiceRef',
        in: 'path',
        required: true,
        description: "The invoice's `ref`, as given",
        schema: {
          type: 'string',
        },
      },
      {
        name: 'document',
        in: 'path',
        required: true,
        description: "`view`: the processor's page of the invoice; `pdf`: its PDF",
        schema: {
          type: 'string',
          enum: ['view', 'pdf'],
        },
      },
      {
        name: 'account',
        in: 'query',
        required: false,
        description:
          "The slug of one of your former accounts (GET /v1/me `formerAccounts`) whose invoice this is: a former account's invoice links carry it; left out: your current account.",
        schema: {
          type: 'string',
        },
      },
    ],
    answers: {
      '303': {
        description: "To the processor's page or PDF of the invoice (`Location`)",
      },
    },
    refusals: {
      '404': refusal(
        "`invoice_not_found` (none of the tenant's invoices has this reference), `account_not_found` (`account` names no account of yours), `invoice_pdf_not_ready` (the invoice has no PDF yet) or `invoice_document_unknown` (`document` is neither `view` nor `pdf`)",
        'invoice_not_found',
        'account_not_found',
        'invoice_pdf_not_ready',
        'invoice_document_unknown',
      ),
      '502': REFUSAL.processorReadFailed,
    },
  },
  PostBillingCheckout: {
    description:
      "Checks that exactly the chosen Plan can be placed in the Home Region (never a substitute) and reserves a place for the Checkout Session's lifetime (31 minutes). The session allows promotion codes (first checkout only), always collects a card, computes tax automatically and charges the Plan at once. Repeating the request while the session is open returns the same url; naming another Plan replaces the open session.",
    requestBody: {},
    answers: {
      '200': json("The hosted page's address"),
    },
    refusals: {
      '409': refusal(
        '`slug_required`, `subscription_exists`, `checkout_in_progress`, or `no_capacity` with `reason` and `availablePlans`; `account_closing`: the account is decommissioning; only the billing status and the export remain (teardownAt says until when)',
        'slug_required',
        'subscription_exists',
        'checkout_in_progress',
        'no_capacity',
        'account_closing',
      ),
      '502': refusal(
        '`processor_unavailable` or `processor_error`: nothing was charged',
        'processor_unavailable',
        'processor_error',
      ),
    },
  },
  PostBillingWaitlist: {
    description:
      'Explicit and idempotent per tenant and Plan. One email is sent once the Plan can be placed in the Home Region.',
    requestBody: {},
    answers: {
      '200': json('Already on the waitlist (the same entry)'),
      '201': json('Joined'),
    },
    refusals: {
      '409': refusal(
        '`account_closing`: the account is decommissioning; only the billing status and the export remain (teardownAt says until when)',
        'account_closing',
      ),
    },
  },
  PostBillingPortal: {
    description: 'The portal only updates the payment method and cancels (at the end of the period).',
    answers: {
      '200': json("The hosted page's address"),
    },
    refusals: {
      '409': refusal(
        '`no_customer`: complete a checkout first; `account_closing`: the account is decommissioning; only the billing status and the export remain (teardownAt says until when)',
        'no_customer',
        'account_closing',
      ),
      '502': REFUSAL.processorFailed,
    },
  },
  PostTenantClose: {
    description:
      "Expires the tenant's open checkout at the processor, releases its capacity reservation and records the close; the reconciler sweep then moves the tenant to `decommissioning` (reason `closed_by_tenant`). Nothing is charged; the slug stays taken forever. A tenant with a subscription leaves through the billing portal.",
    answers: {
      '202': json('The close is recorded; the account is decommissioning within a minute'),
    },
    refusals: {
      '409': refusal(
        '`close_in_portal`: the account has a subscription, cancel it in the portal; `subscription_exists`: a checkout was just paid; `account_closing`: the account is decommissioning; only the billing status and the export remain (teardownAt says until when)',
        'close_in_portal',
        'subscription_exists',
        'account_closing',
      ),
      '502': REFUSAL.processorFailed,
    },
  },
  GetStacks: {
    description:
      'Every Stack of the tenant, each with its Plan, resources and caps, location, lifecycle, versions and health. Any member; reads only.',
    answers: {
      '200': json('The Stacks'),
    },
    refusals: {},
  },
  PostStacks: {
    description:
      'Only while the processor reports the subscription active. Up to the Stack Cap (STACK_CAP, default 5). Placed as at checkout. Billed on the same subscription: one item per price, quantity = Stacks on that price; the proration for the rest of the period lands on the next invoice. No promotion code. The name is `s<n>.<slug>.<stack domain>`.',
    parameters: [
      {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        schema: {
          type: 'string',
          maxLength: 255,
        },
        description:
          "A retry with the same key creates one Stack and one item change, and answers the first result; the same key with another body is 409 idempotency_key_reused. While the first request may still be running (up to the API function's timeout, 10 s after it claimed the key), 409 request_in_progress; a request that died is taken over after that time, carrying on with the Stack it had chosen.",
      },
    ],
    requestBody: {},
    answers: {
      '201': json('The new Stack'),
    },
    refusals: {
      '409': refusal(
        '`no_capacity` (with `reason`, `availablePlans`), `stack_cap_reached` (with `stackCap`), `billing_overdue`, `no_subscription`, `subscription_not_active` (the processor does not report the subscription active, whatever our state says), `cancellation_scheduled` (a cancellation is scheduled for the end of the paid period, before and after the sweep moved the tenant to decommissioning; with `teardownAt`, null until the sweep set it), `account_closing` (leaving for another cause), `idempotency_key_reused`, `request_in_progress`',
        ...STACK_ADD_CODES,
        'idempotency_key_reused',
        'request_in_progress',
      ),
      '502': REFUSAL.processorFailed,
      '503': {
        description:
          "`subscription_busy`: another change of the tenant's subscription items (a Plan Change's billing commit, a price move, another add) held them for more than 3 seconds; nothing was added or charged. Retry after `retryAfterSeconds` (also sent as the `Retry-After` header), with the same Idempotency-Key if one was sent.",
        codes: ['subscription_busy', 'processor_outcome_unknown'],
        headers: {
          'Retry-After': {
            description: 'Seconds to wait before retrying (the same as `retryAfterSeconds`).',
            schema: {
              type: 'integer',
              minimum: 1,
            },
          },
        },
      },
    },
  },
  PostStacksPreview: {
    description:
      "The same checks as POST /v1/stacks, and the processor's estimate (invoices.createPreview) of the next invoice with the Stack added now: the proration for the rest of the period as `adjustment`, after the current discount, with its tax estimate (`adjustmentTax`) and its lines. Writes nothing.",
    requestBody: {},
    answers: {
      '200': json('The estimate'),
    },
    refusals: {
      '409': refusal('the refusals of POST /v1/stacks', ...STACK_ADD_CODES),
      '502': refusal(
        '`estimate_unavailable`: the processor could not estimate; no figure is shown',
        'estimate_unavailable',
      ),
    },
  },
  GetStack: {
    description:
      'One Stack of the tenant, in the same shape as an item of GET /v1/stacks. Any member; a Stack of another tenant is answered as one that does not exist (404 `stack_not_found`).',
    parameters: [PARAMETER.stackId],
    answers: {
      '200': json('The Stack'),
    },
    refusals: {
      '404': REFUSAL.stackNotFound,
    },
  },
  PostStackDispatcherCredential: {
    description:
      'The secret is answered once; only its hash is stored. The previous credential keeps working for one hour.',
    parameters: [PARAMETER.stackId],
    answers: {
      '201': json('The new credential'),
    },
    refusals: {
      '404': REFUSAL.stackNotFound,
      '409': refusal(
        '`stack_torn_down` or `credential_rotation_in_progress`',
        'stack_torn_down',
        'credential_rotation_in_progress',
      ),
    },
  },
  PostStackProject: {
    description:
      "Registers a Project (a repository on the code host, `owner/name`) on a running Stack, while the Stack watches fewer Projects than its Plan's Watched-Projects cap. Administrators only. Refused with 409 when the cap is reached (`watchedProjectsCap` says it), when the Project is already there, or when the Stack is not running; nothing is written then.",
    parameters: [PARAMETER.stackId],
    requestBody: {
      fieldDescriptions: {
        repository: 'owner/name on the code host',
      },
    },
    answers: {
      '201': json('The Project'),
    },
    refusals: {
      '404': REFUSAL.stackNotFound,
      '409': refusal(
        '`watched_projects_cap_reached` (with `watchedProjectsCap`), `project_exists`, `stack_not_running`',
        'watched_projects_cap_reached',
        'project_exists',
        'stack_not_running',
      ),
    },
  },
  GetStackProjects: {
    description: "A Stack's Projects and its Watched-Projects cap. Any member; reads only.",
    parameters: [PARAMETER.stackId],
    answers: {
      '200': json('The Projects'),
    },
    refusals: {
      '404': REFUSAL.stackNotFound,
    },
  },
  DeleteStackProject: {
    description:
      'Removes a Project from a Stack, which frees a place under its Watched-Projects cap. Administrators only. A Project that is not there (or was removed meanwhile) is 404 `project_not_found`.',
    parameters: [PARAMETER.stackId, PARAMETER.projectId],
    answers: {
      '204': {
        description: 'Removed',
      },
    },
    refusals: {
      '404': refusal('`stack_not_found` or `project_not_found`', 'stack_not_found', 'project_not_found'),
    },
  },
  PostPlanChangePreview: {
    description:
      "Both Plans side by side (capacity: placeable_in_location, placeable_elsewhere_in_home_region or would_queue; quotas; monthly prices), the processor's estimate of the next invoice (invoices.createPreview with create_prorations at this moment) with its discount and tax, and the change's own adjustment after the current discount with its tax estimate and its lines in our words, the preserved billing-cycle date, every refusal a confirmation would meet, and warnings. Writes nothing. With any release gate down: 409 plan_changes_unavailable.",
    parameters: [PARAMETER.stackId],
    requestBody: {},
    answers: {
      '200': json('The preview'),
    },
    refusals: {
      '404': refusal('`stack_not_found`', 'stack_not_found'),
      '409': refusal('`plan_changes_unavailable` (with `gatesNotReady`)', 'plan_changes_unavailable'),
      '502': REFUSAL.processorFailed,
    },
  },
  PostPlanChange: {
    description:
      "Moves the Stack to another Plan. The change is recorded and its workflow started. It starts in `waiting_for_work` (a place for the new Plan held in the Stack's own location in the same transaction; admission of new work is paused) when the Stack's location has room, and otherwise in `waiting_for_capacity` (it looks for a place anywhere in the Home Region every 15 minutes, and expires 7 days after confirmation). A change of the same Stack still waiting for capacity is superseded by the new one. The processor's estimate at this moment is kept on the record (`estimate`, null when the processor could not estimate); billing is committed only once the replacement is healthy. With any release gate down: 409 plan_changes_unavailable.",
    parameters: [
      PARAMETER.stackId,
      {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        schema: {
          type: 'string',
          minLength: 1,
          maxLength: 255,
          pattern: '^[\\x21-\\x7E]{1,255}$',
        },
        description:
          "1 to 255 visible ASCII characters (400 `invalid_idempotency_key` otherwise). A retry with the same key and the same body confirms once: it answers 202 with the record as it was first answered, and makes sure the change's workflow runs. The same key with another Stack or Plan is 409 `idempotency_key_reused`; while the first request may still be running (up to the API function's timeout, 10 s after it claimed the key), 409 `request_in_progress`; a request that died without recording the change is taken over after that time. A request refused with nothing recorded leaves the key free to use again.",
      },
    ],
    requestBody: {},
    answers: {
      '202': json(
        'Confirmed: the change runs (`waiting_for_work`) or waits for capacity (`waiting_for_capacity`); follow it with GET /v1/plan-changes/{changeId}',
      ),
    },
    refusals: {
      '400': refusal(
        '`invalid_idempotency_key` (with `field`: `Idempotency-Key`), or a body error (`invalid_json`, `body_too_large`, `unknown_field`, `invalid_field`, `invalid_body`)',
        'invalid_idempotency_key',
        'invalid_json',
        'body_too_large',
        'unknown_field',
        'invalid_field',
        'invalid_body',
      ),
      '404': REFUSAL.stackNotFound,
      '409': refusal(
        "`plan_changes_unavailable` (a release gate is not ready; with `gatesNotReady`; checked first), `idempotency_key_reused` (the same Idempotency-Key with another Stack or Plan), `request_in_progress` (the first request with this Idempotency-Key is still being handled: repeat it in a few seconds), then the first of these that applies, in the order of the preview's `refusals`: `cancellation_scheduled` (a cancellation is scheduled for the end of the paid period: named before and after the sweep moved the tenant to decommissioning for it), `account_closing` (the tenant is decommissioning for another cause), `billing_overdue` (the tenant is past-due or suspended: pay in the billing portal first), `subscription_not_active` (the processor does not report the subscription active, even while our state says active), `stack_not_running` (the Stack is decommissioning or torn down), `plan_unchanged` (the Stack is already on this Plan), `operation_in_progress` (another change of this Stack is past Waiting for Capacity and has not ended); and `confirm_conflict` (the Stack kept changing while the change was confirmed: read GET /v1/plan-changes?stackId=, then try again). Nothing was written. Missing capacity is never a refusal: the change queues.",
        'plan_changes_unavailable',
        'idempotency_key_reused',
        'request_in_progress',
        'cancellation_scheduled',
        'account_closing',
        'billing_overdue',
        'subscription_not_active',
        'stack_not_running',
        'plan_unchanged',
        'operation_in_progress',
        'confirm_conflict',
      ),
      '502': refusal(
        '`processor_unavailable` or `processor_error`: the subscription could not be read; nothing was recorded',
        'processor_unavailable',
        'processor_error',
      ),
    },
  },
  PostPlanChangeCancel: {
    description:
      'Allowed while the change is `waiting_for_capacity` or `waiting_for_work` (`cancellable: true`); the final backup (`preparing`) closes the cancel window. The change ends `cancelled`: admission reopens on the previous Plan, a held place is given back, billing is untouched, and its workflow stops. No request body (or `{}`).',
    parameters: [PARAMETER.changeId],
    answers: {
      '200': json('Cancelled: the record, now `cancelled`'),
    },
    refusals: {
      '404': REFUSAL.planChangeNotFound,
      '409': refusal(
        '`plan_change_ended` (the change already ended; its `status` at top level), `plan_change_not_cancellable` (the change is `preparing`, `switching` or `verifying`: it completes or rolls back on its own; its `status` at top level), `cancel_conflict` (the change kept moving while it was cancelled: try again)',
        'plan_change_ended',
        'plan_change_not_cancellable',
        'cancel_conflict',
      ),
    },
  },
  GetPlanChanges: {
    description:
      'Every Plan Change of the tenant, ended ones included, newest confirmation first (any member of the tenant).',
    parameters: [
      {
        name: 'stackId',
        in: 'query',
        required: false,
        description: "Only this Stack's changes (a Stack of another tenant, or none: 404); empty means all",
        schema: {
          type: 'string',
        },
      },
    ],
    answers: {
      '200': json('The Plan Changes'),
    },
    refusals: {
      '404': REFUSAL.stackIdNotFound,
    },
  },
  GetPlanChange: {
    description:
      'Both Plans, the status and its history, what the tenant can do next (`recovery`), the estimate shown at confirmation and, once billing committed, the exact adjustment beside it with why they differ (any member of the tenant).',
    parameters: [PARAMETER.changeId],
    answers: {
      '200': json('The Plan Change'),
    },
    refusals: {
      '404': REFUSAL.planChangeNotFound,
    },
  },
  GetPlanChangesExport: {
    description:
      'Every Plan Change of the tenant, oldest first, one JSON object a line: the same record as GET /v1/plan-changes/{changeId} (no processor id, no operator, no storage locator) plus `exportedAt`, the moment of the export (the same on every line). A tenant with no change gets an empty body. Sent as an attachment (`plan-changes.jsonl`).',
    answers: {
      '200': {
        description: 'The export: each line one object of the schema below, ended by a newline',
        headers: {
          'Content-Disposition': {
            schema: {
              type: 'string',
              example: 'attachment; filename="plan-changes.jsonl"',
            },
          },
        },
        content: {
          'application/x-ndjson': {},
        },
      },
    },
    refusals: {},
  },
  PostCredential: {
    description:
      "A new name creates the Credential (201); an existing one rotates it (200): new material, possibly another kind, never another Provider; an archived one comes back. The material is envelope-encrypted with a KMS data key and never returned. The Credential's validation is `pending` until the Stack's Dispatcher checks it; the desired state's version goes up. Accepted kinds: provider-a `oauth_token`, `api_key`, `ambient`; provider-b `auth_file`, `api_key`, `ambient`; provider-c `api_key`. `oauth_token`, `auth_file` and `ambient` spend the tenant's own subscription and need `consent` (who and when come from the session and the Clock); `api_key` needs none. `ambient` stores no material and is accepted only on a Stack whose Dispatcher reports it is a Local Stack using the host Executor. Refusals write nothing.",
    parameters: [PARAMETER.credentialName, PARAMETER.stackIdQuery],
    requestBody: {
      description:
        'At most 36864 bytes (`x-max-body-bytes`): the longest `material`, JSON-escaped (a quote, a backslash or a line break takes two characters), and 4 KB for the other fields. Send other characters as they are (UTF-8), not as `\\u` escapes.',
      fieldDescriptions: {
        material:
          "The secret: the token or key, or the auth file's JSON text (a JSON object with at least one field, at most 16384 bytes in UTF-8). At most 16384 characters whatever the kind (longer: 400 `invalid_field`, field `material`); a token or key is far shorter, and an auth file of 16384 bytes has at most that many characters. Required for every kind but `ambient`, which takes none.",
        consent:
          'The administrator consents to spending the personal subscription: exactly for `oauth_token`, `auth_file` and `ambient`',
        'consent.textVersion':
          'The version of the consent text shown: the current one, as GET /v1/credentials/catalog gives it (such as 2026-11)',
        runtimeProfile: 'Left out on a rotation: the current profile stays',
      },
    },
    answers: {
      '200': json('Rotated'),
      '201': json('Created'),
    },
    refusals: {
      '400': refusal(
        "`invalid_credential_name`, `kind_not_accepted` (with `accepted`), `consent_required`, `consent_not_expected`, `consent_version_unknown` (with `currentTextVersion`: `consent.textVersion` is not the current consent text's version), `material_required`, `material_not_expected` (`ambient`), `invalid_auth_file` (not JSON, not an object, empty, or over 16384 bytes), or a body error (`invalid_json`, `body_too_large` (over 36864 bytes), `unknown_field`, `invalid_field`, `invalid_body`)",
        'invalid_credential_name',
        'kind_not_accepted',
        'consent_required',
        'consent_not_expected',
        'consent_version_unknown',
        'material_required',
        'material_not_expected',
        'invalid_auth_file',
        'invalid_json',
        'body_too_large',
        'unknown_field',
        'invalid_field',
        'invalid_body',
      ),
      '404': REFUSAL.stackIdNotFound,
      '409': refusal(
        "`provider_change` (the name belongs to a Credential of another Provider: choose a new name), `ambient_not_available` (the Stack's Dispatcher does not report a Local Stack with the host Executor), `stack_torn_down` (the Stack was torn down), `credential_conflict` (another provisioning of the same name came first: read the list, then try again)",
        'provider_change',
        'ambient_not_available',
        'stack_torn_down',
        'credential_conflict',
      ),
    },
  },
  GetCredentials: {
    description:
      'Every Credential of the Stack (archived ones included), never their material, and the Guide selection (any member of the tenant).',
    parameters: [PARAMETER.stackIdQuery],
    answers: {
      '200': json('The Credentials'),
    },
    refusals: {
      '404': REFUSAL.stackIdNotFound,
    },
  },
  GetCredentialCatalog: {
    description:
      "What the API accepts when provisioning a Credential (any member of the tenant): each Provider with its name, the model and effort a blank Runtime Profile falls back to, and its accepted kinds in order, each saying whether it needs the administrator's consent, is accepted only on a Local Stack using the host Executor (`ambient`), and is metered by the provider (`api_key`); the consent text, with the version a provisioning's `consent.textVersion` must name; the Runtime Profile's activities and efforts. The same for every tenant; reads nothing stored.",
    answers: {
      '200': json('The catalog'),
    },
    refusals: {},
  },
  PostCredentialArchive: {
    description:
      "The Credential stays in the list, unusable (`unusableReason`: `archived`), and can no longer be a route's Primary or Fallback nor the Guide Credential. A Guide selection naming it is cleared (reason `archived`). Archiving an archived Credential changes nothing. A new provisioning of the name brings it back.",
    parameters: [PARAMETER.credentialName, PARAMETER.stackIdQuery],
    answers: {
      '200': json('Archived'),
    },
    refusals: {
      '404': REFUSAL.credentialNotFound,
      '409': refusal('`credential_conflict`: it changed meanwhile; try again', 'credential_conflict'),
    },
  },
  DeleteCredential: {
    description:
      "Blocked (409 `credential_in_use`, with every use) while any Project's intake or dispatch route names the Credential. Otherwise a first request always answers 409 `confirmation_required` with the number of historical Threads bound to it (they become non-resumable; 0 when none is) and a token; repeating it with `confirmationToken` within 15 minutes deletes it. A token that is not the pending one answers 400 `invalid_confirmation` and keeps the pending one; the pending token after it expired, or after more Threads were bound, answers `confirmation_required` again with a new token. A Guide selection naming it is cleared (reason `deleted`).",
    parameters: [
      PARAMETER.credentialName,
      PARAMETER.stackIdQuery,
      {
        name: 'confirmationToken',
        in: 'query',
        required: false,
        description: 'The token of a `confirmation_required` answer',
        schema: {
          type: 'string',
        },
      },
    ],
    answers: {
      '200': json('Deleted'),
    },
    refusals: {
      '400': refusal(
        '`invalid_confirmation`: a `confirmationToken` that is not the pending one (none pending, or another)',
        'invalid_confirmation',
      ),
      '404': REFUSAL.credentialNotFound,
      '409': refusal(
        '`credential_in_use` (with `uses`; nothing written), `confirmation_required` (with `threadCount`, `confirmationToken`, `expiresAt`), `credential_conflict` (it changed meanwhile: try again)',
        'credential_in_use',
        'confirmation_required',
        'credential_conflict',
      ),
    },
  },
  PutProjectCredentialRoutes: {
    description:
      "Replaces the Project's routes as a whole: for `intake` and for `dispatch`, a Primary and an optional Fallback, each a Credential of the same Stack that is not archived. An activity left out has no route (a new Thread for it is refused).",
    parameters: [PARAMETER.stackId, PARAMETER.projectId],
    requestBody: {
      fieldDescriptions: {
        'intake.fallback': 'Used when the Primary is not usable; must differ from it',
        'dispatch.fallback': 'Used when the Primary is not usable; must differ from it',
      },
    },
    answers: {
      '200': json('The routes'),
    },
    refusals: {
      '400': refusal(
        '`invalid_route` (a Fallback equal to its Primary; `field` says which), or a body error (`invalid_json`, `body_too_large`, `unknown_field`, `invalid_field`, `invalid_body`)',
        'invalid_route',
        'invalid_json',
        'body_too_large',
        'unknown_field',
        'invalid_field',
        'invalid_body',
      ),
      '404': refusal(
        '`stack_not_found`, `project_not_found`, `credential_not_found` (a name that is no Credential of the Stack)',
        'stack_not_found',
        'project_not_found',
        'credential_not_found',
      ),
      '409': refusal(
        '`credential_archived`: an archived Credential cannot be a Primary or a Fallback (`field` says which)',
        'credential_archived',
      ),
    },
  },
  PutGuideCredential: {
    description:
      'Every Guide Session of the Stack uses this one Credential, never another. `{ "name": null }` clears the selection (reason `cleared_by_administrator`). A Credential whose validation is pending can be selected (Guide Sessions wait for it); an archived one, or one whose validation failed, cannot.',
    parameters: [PARAMETER.stackId],
    requestBody: {},
    answers: {
      '200': json('The Guide selection'),
    },
    refusals: {
      '404': REFUSAL.credentialNotFound,
      '409': refusal(
        '`credential_unusable` (with `reason`: `archived` or `validation_failed`)',
        'credential_unusable',
      ),
    },
  },
  PostStackExport: {
    description:
      "The Stack's Dispatcher builds an uncompressed tar (`manifest.json`, `journal.db`, `bundles/<threadId>.bundle`; see docs/exports.md) and uploads it to the control plane's private storage. Allowed while the Stack runs or is decommissioning, until its teardown; one export at a time per Stack. No body (or `{}`).",
    parameters: [PARAMETER.stackId],
    answers: {
      '202': json('The export, requested'),
    },
    refusals: {
      '404': REFUSAL.stackNotFound,
      '409': refusal(
        '`stack_torn_down` (nothing left to export), `export_in_progress` (with `exportId`, the running one)',
        'stack_torn_down',
        'export_in_progress',
      ),
    },
  },
  GetStackExports: {
    description:
      'The 20 newest exports of the Stack at most, newest first, each exactly as `GET /v1/stacks/{stackId}/exports/{exportId}` shows it (never where it is stored); an empty list when the Stack has none.',
    parameters: [PARAMETER.stackId],
    answers: {
      '200': json('The exports'),
    },
    refusals: {
      '404': REFUSAL.stackNotFound,
    },
  },
  GetStackExport: {
    description:
      "An export's status: `requested`, `building`, `ready` (its size, and until when it can be downloaded) or `failed` (why). Any member; poll it after POST /v1/stacks/{stackId}/exports.",
    parameters: [PARAMETER.stackId, PARAMETER.exportId],
    answers: {
      '200': json('The export'),
    },
    refusals: {
      '404': REFUSAL.exportNotFound,
    },
  },
  PostStackExportDownload: {
    description:
      "The URL is on the console's own site (`https://<console domain>/exports/<opaque key>?Expires=…&Signature=…&Key-Pair-Id=…`, CloudFront with a trusted key; locally the control plane's `/_local/exports/…`), valid 5 minutes; ask again for a fresh one. It names no bucket and no storage path: only the archive's random 256-bit key. Works while decommissioning, until teardown. No body (or `{}`).",
    parameters: [PARAMETER.stackId, PARAMETER.exportId],
    answers: {
      '200': json('Where to download the archive'),
    },
    refusals: {
      '404': REFUSAL.exportNotFound,
      '409': refusal(
        '`export_not_ready`, `export_failed`, `stack_torn_down`',
        'export_not_ready',
        'export_failed',
        'stack_torn_down',
      ),
      '410': refusal('`export_expired`: archives are kept 7 days after they are ready', 'export_expired'),
    },
  },
  GetDispatcherDesiredState: {
    description:
      "For a Stack's Dispatcher (its Dispatcher credential): what its Stack must be now (version, Plan, Credentials, any Plan Change step to carry out). The ETag is the desired state's version: send it back in If-None-Match and an unchanged state is 304 with no body. `X-Poll-After-Seconds` says when to ask again.",
    parameters: [
      {
        name: 'If-None-Match',
        in: 'header',
        required: false,
        schema: {
          type: 'string',
        },
      },
    ],
    answers: {
      '200': json('The desired state; ETag = its version; X-Poll-After-Seconds says when to poll next'),
      '304': {
        description: 'Unchanged since the ETag sent',
      },
    },
    refusals: {
      '401': REFUSAL.dispatcherUnauthenticated,
    },
  },
  PutDispatcherObservedState: {
    description:
      "For a Stack's Dispatcher: what it applied and sees (the version it applied, health, active runs, the outcome of its last Plan Change step, a finished teardown). A version the Stack never published, or a Stack that changed meanwhile, is 409 `unknown_version` and nothing is stored: read the desired state again and report the version applied.",
    requestBody: {
      fieldDescriptions: {
        localHostExecutor:
          'The Stack is a Local Stack using the host Executor (only then are `ambient` Credentials accepted); false when left out',
        tornDown:
          'The teardown is done (while decommissioning, once `teardown_at` has passed). While a Plan Change is past its cancel window (step `backup`, `switch` or `verify`) it is not taken and is stored as false: confirm it again once the change has ended.',
        operation:
          "The outcome of the last Plan Change step the Dispatcher carried out (`drain` has none). Report it with the observed state that applies the step's version, and keep reporting the last one on later polls. Stored as reported whatever its `id`.",
        'operation.id': "The desired state's `operation.id` (pc_…)",
        'operation.reason': 'Why the step failed, for operators (never shown to tenants)',
        'operation.addressChanged':
          "After `switch`: the replacement's public IP address differs from the old one",
      },
    },
    answers: {
      '200': json('Recorded'),
    },
    refusals: {
      '401': REFUSAL.dispatcherUnauthenticated,
      '409': refusal(
        '`unknown_version`: a version newer than published, or the Stack changed meanwhile (read the desired state again); nothing was stored',
        'unknown_version',
      ),
    },
  },
  GetDispatcherCredential: {
    description:
      "Only the calling Dispatcher's own Stack's Credentials: a name of another Stack is simply not found. Check the material with the provider and report the verdict with `version`.",
    parameters: [PARAMETER.credentialName],
    answers: {
      '200': json('The material to check'),
    },
    refusals: {
      '401': REFUSAL.dispatcherUnauthenticated,
      '404': refusal(
        '`credential_not_found`: the Stack has no such Credential (deleted meanwhile: nothing to validate)',
        'credential_not_found',
      ),
    },
  },
  PostDispatcherCredentialValidation: {
    description:
      'Counts only for the version checked. `invalid` makes the Credential unusable and clears a Guide selection naming it (reason `validation_failed`). The tenant is told our reason code (`provider_refused`) and its text, never `reason`: that is kept for operators.',
    parameters: [PARAMETER.credentialName],
    requestBody: {
      fieldDescriptions: {
        version: 'The `version` read with the material',
        reason: 'Why it is invalid, for operators (never shown to tenants; never the material)',
      },
    },
    answers: {
      '200': json('Recorded'),
    },
    refusals: {
      '401': REFUSAL.dispatcherUnauthenticated,
      '404': refusal('`credential_not_found`', 'credential_not_found'),
      '409': refusal(
        '`stale_version` (with `currentVersion`: the Credential was rotated meanwhile; validate the new material), `credential_changed` (it kept changing: report again)',
        'stale_version',
        'credential_changed',
      ),
    },
  },
  PostDispatcherThread: {
    description:
      "Takes the Project's Credential Route for the activity: the Primary while usable, else the Fallback (with its own Runtime Profile). Model and effort resolve (this request's values, else the Credential's profile for the activity, else the Provider's default) and are bound to the Thread for good. The same `threadId` again answers the same binding with the bound Credential's current material, while that Credential is neither deleted, archived nor disabled by the subscription policy.",
    requestBody: {},
    answers: {
      '200': json('The Thread, bound'),
    },
    refusals: {
      '401': REFUSAL.dispatcherUnauthenticated,
      '404': refusal('`project_not_found`: the Stack has no such Project', 'project_not_found'),
      '409': refusal(
        '`no_credential_route` (with `activity`), `no_usable_credential` (with `activity` and `reasons`), `thread_exists` (the `threadId` is bound to another Project or activity: use a new id), `thread_not_resumable` (with `reason` and `credential`: start a new Thread)',
        'no_credential_route',
        'no_usable_credential',
        'thread_exists',
        'thread_not_resumable',
      ),
    },
  },
  PostDispatcherGuideSession: {
    description:
      "Uses the Stack's Guide selection and never another Credential; model and effort resolve from this request, else the Credential's `guide` profile, else the Provider's default, and are bound to the Thread for good. With no usable selection: 409 `guide_unavailable` with the reason; a selected Credential that is gone, archived, failed its validation or is disabled by the subscription policy is cleared then, keeping why. The same `threadId` again answers the same binding.",
    requestBody: {},
    answers: {
      '200': json("The Guide Session's Thread, bound (`activity` and `credential.position`: `guide`)"),
    },
    refusals: {
      '401': REFUSAL.dispatcherUnauthenticated,
      '409': refusal(
        "`guide_unavailable` (with `reason`, and `credential` and `cleared` as they apply), `thread_exists` (the `threadId` is bound to a Project's Thread), `thread_not_resumable` (with `reason` and `credential`)",
        'guide_unavailable',
        'thread_exists',
        'thread_not_resumable',
      ),
    },
  },
  PostDispatcherExportParts: {
    description:
      'For the export the desired state names (`export.id`). The archive goes up as a multipart upload: PUT each part (every part but the last at least 5 MiB; at most 10,000 parts) to its URL, as it is, and keep the `ETag` each PUT answers. URLs work 15 minutes; ask again for fresh ones at any time. The first request makes the upload.',
    parameters: [PARAMETER.exportId],
    requestBody: {},
    answers: {
      '200': json('One URL per part number'),
    },
    refusals: {
      '401': REFUSAL.dispatcherUnauthenticated,
      '404': refusal('`export_not_found`: the Stack has no such export', 'export_not_found'),
      '409': refusal(
        '`export_not_running` (with `status`): it is ready or failed already',
        'export_not_running',
      ),
    },
  },
  PostDispatcherExportOutcome: {
    description:
      "`ready`: the archive's size and every part's number and ETag, in order (the control plane completes the upload; S3 checks each ETag, and the stored size must equal `sizeBytes`). `failed`: why, for the tenant to read. Bodies up to 1 MiB. A repeated report of an ended export answers its status and changes nothing.",
    parameters: [PARAMETER.exportId],
    requestBody: {
      fieldDescriptions: {
        reason:
          'Why the archive could not be built, for operators (never shown to tenants: they see `failureCode` `build_failed`)',
      },
    },
    answers: {
      '200': json('The export as the tenant sees it'),
    },
    refusals: {
      '401': REFUSAL.dispatcherUnauthenticated,
      '404': refusal('`export_not_found`', 'export_not_found'),
      '409': refusal(
        '`export_not_running`, `nothing_uploaded` (no part URL was asked for), `upload_incomplete` (S3 refused the parts: the export has failed), `size_mismatch` (with `storedBytes`: the export has failed)',
        'export_not_running',
        'nothing_uploaded',
        'upload_incomplete',
        'size_mismatch',
      ),
    },
  },
  PostDispatcherBlockingVerdict: {
    description:
      "For a Stack's Dispatcher: the one blocking rule, applied to an issue from its three sources (the code host's native dependencies, the relationship edges, and the `## Blocked by` section of the issue's body, with the known states of the issues they name). Answers whether the issue is blocked and which blockers are open. Reads and writes nothing.",
    requestBody: {},
    answers: {
      '200': json('The verdict'),
    },
    refusals: {
      '401': REFUSAL.dispatcherUnauthenticated,
    },
  },
  PostOpsRefund: {
    description:
      "An operator action, not a tenant one: API Gateway's IAM authorizer lets only requests signed (SigV4) by an IAM principal allowed `execute-api:Invoke` on this route through; no session reaches it, and the local control plane (which has no IAM) answers 403 and points at `npm run ops -- refund`. The address must be the processor customer's or an administrator's (case-insensitive); the window is judged at `requestedAt` (when support received the email; default now, never later than now), inclusive up to 14 × 24 hours after the payment of the first invoice above zero; once per tenant, ever; not while decommissioning. Every payment made in the window is refunded (one refund per payment, keyed per payment), the subscription is cancelled at once (no proration) and its open invoices voided; the grant is recorded on the tenant with the confirmation email. The sweep then moves the tenant to `decommissioning` (reason `refund_granted`). A request that stopped part-way (processor failure) is continued by the same request, refunding nothing twice.",
    requestBody: {
      fieldDescriptions: {
        email: 'The address the tenant wrote to support from',
        requestedAt: 'When support received the email (default: now)',
      },
    },
    answers: {
      '200': json('Granted: what was refunded (minor units), and the window'),
    },
    refusals: {
      '400': refusal(
        '`requested_in_future`: the request time is later than now; or an invalid body',
        'requested_in_future',
      ),
      '403': refusal(
        "Not IAM-signed (API Gateway's own 403; locally always), `iam_required`, or `email_mismatch`: the address is neither the customer's nor an administrator's",
        'iam_required',
        'email_mismatch',
      ),
      '404': refusal('`tenant_not_found`: no tenant has the slug', 'tenant_not_found'),
      '409': refusal(
        '`already_used` (once per tenant, ever), `decommissioning` (the account is already leaving), `nothing_paid` (no invoice above zero was paid when the email was received), `window_passed` (`windowEndsAt` says when it ended), or `payment_not_seen_yet` (try again in a minute)',
        'already_used',
        'decommissioning',
        'nothing_paid',
        'window_passed',
        'payment_not_seen_yet',
      ),
      '502': refusal(
        '`processor_unavailable` or `processor_error`: the grant stays under way; the same request continues it',
        'processor_unavailable',
        'processor_error',
      ),
    },
  },
  ProcessorWebhook: {
    description:
      'Called by the payment processor. The `Stripe-Signature` header is verified on the raw body (5-minute tolerance); a verified event of any type is queued and answered 200. It never changes tenant state.',
    parameters: [
      {
        name: 'Stripe-Signature',
        in: 'header',
        required: true,
        schema: {
          type: 'string',
        },
      },
    ],
    requestBody: {
      description:
        "The event exactly as the processor sent it (its signature covers these bytes), at most 524288 bytes (`x-max-body-bytes`): the processor's events stay well below it.",
      schema: {
        type: 'object',
      },
    },
    answers: {
      '200': json('Verified and queued'),
    },
    refusals: {
      '400': refusal(
        '`missing_signature`, `invalid_signature` (tampered, other secret or stale), `invalid_payload` (correctly signed but not JSON, or not a processor event with `id`, `type` and `data.object`; nothing is queued) or `body_too_large`',
        'missing_signature',
        'invalid_signature',
        'invalid_payload',
        'body_too_large',
      ),
    },
  },
};
