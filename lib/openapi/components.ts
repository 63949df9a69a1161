/**
 * The document's shared parts: its introduction, security schemes, the answers' component schemas
 * (JSON Schema) and the words of the refusals every route of a kind shares.
 */
import { toJsonSchema } from '@valibot/to-json-schema';
import { ErrorBodySchema } from '#http/errors.ts';
import type { JsonSchema } from './types.ts';

/** The error shape of every refusal, from its valibot schema (functions/http/errors.ts). */
export const ERROR_SCHEMA: JsonSchema = (({ $schema: _draft, ...schema }) => schema)(
  toJsonSchema(ErrorBodySchema, { target: 'draft-2020-12' }) as JsonSchema,
);

export const INFO = {
  license: {
    name: 'Proprietary: for tenants of the Stack Control Plane',
    identifier: 'LicenseRef-Proprietary',
  },
  title: 'Stack Control Plane API',
  version: '1.0.0',
  description:
    'Tenant-facing API of the Stack Control Plane. Every error is `{ "error": { "code", "message", "field"?, "apiHint"?, "requestId" } }`, with any extra fields the specification names at top level. Every response carries `x-request-id`. Request bodies are JSON objects of at most 16384 bytes (`x-max-body-bytes` at the top of this document), unless an operation\'s request body names its own limit (its `x-max-body-bytes`); a larger body is 400 `body_too_large`. Unknown fields are refused. Any operation may answer 503 `temporarily_busy` (with `retryAfterSeconds` and the `Retry-After` header) when the request met another write to the same records or a throttled table: nothing of it was saved; send it again after that many seconds (with the same Idempotency-Key, if one was sent).',
};

export const SERVERS = [
  {
    // Relative: the site the reference page (/docs) and this document are served from, which
    // reaches the API (the console's site in the cloud sends /v1/* and /credentials* on to it;
    // npm start answers at http://localhost:3000).
    url: '/',
    description: 'This site: the console site of a deployed stage, or npm start (http://localhost:3000)',
  },
];

export const SECURITY_SCHEMES = {
  bearer: {
    type: 'http',
    scheme: 'bearer',
    description: 'The `sessionToken` from sign-in.',
  },
  sessionCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: 'scp_session',
  },
  dispatcherCredential: {
    type: 'http',
    scheme: 'bearer',
    description:
      "A Stack's Dispatcher credential (scd_…), issued by POST /v1/stacks/{stackId}/dispatcher-credential",
  },
  sigv4: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description:
      "An operator's AWS Signature Version 4 (API Gateway's IAM authorizer; the principal needs execute-api:Invoke on the route). Operators only; never a tenant.",
  },
};

export const SHARED_REFUSAL_WORDS = {
  InternalError:
    '`internal_error`: a fault of ours (a defect, or a setting the platform team has not made yet, such as a placeholder secret): nothing is to fix in the request; it is logged and alarmed, and the same request may be sent again later.',
  TemporarilyBusy:
    'The request met another write to the same records or a throttled table: nothing of it was saved; send it again after `retryAfterSeconds` (also the `Retry-After` header), with the same Idempotency-Key if one was sent.',
  Unauthenticated:
    'No session, or a revoked, unknown or expired one (`missing_session`, `invalid_session`, `expired_session`).',
  BadRequest:
    'Malformed JSON, a body over the limit, an unknown field or a field of the wrong type (`invalid_json`, `body_too_large`, `unknown_field`, `invalid_field`, `invalid_body`).',
  Forbidden:
    '`admin_required` (a member asked for an administrator action) or `origin_mismatch` (a cookie-authenticated write from another origin)',
  UnsupportedMediaType:
    '`unsupported_media_type`: a request body sent with a Content-Type other than `application/json` (parameters such as `; charset=utf-8` are fine). A request without a body needs none. Nothing was done.',
  Throttled:
    'API Gateway\'s own throttle (the stage\'s rate, or a Dispatcher route\'s, sized for the fleet), answered before any of our code runs (`{"message":"Too Many Requests"}`, not the error shape): nothing was done; send the request again after a short, growing pause (the typed client does).',
  PayloadTooLarge:
    'A body over API Gateway\'s 10 MB payload limit, answered by API Gateway itself (`{"message":"Request Entity Too Large"}`, not the error shape); bodies over the handlers\' 16 KB limit are 400 `body_too_large`.',
};

export const ANSWER_SCHEMAS: Record<string, JsonSchema> = {
  Money: {
    type: 'object',
    required: ['amount', 'currency'],
    properties: {
      amount: {
        type: 'integer',
        description: 'Minor units (cents).',
      },
      currency: {
        type: 'string',
        enum: ['USD'],
      },
    },
  },
  Plan: {
    type: 'object',
    required: [
      'value',
      'name',
      'monthlyPrice',
      'resources',
      'runCap',
      'reserveCap',
      'watchedProjectsCap',
      'placeable',
    ],
    properties: {
      value: {
        type: 'string',
        enum: ['standard', 'plus', 'pro'],
      },
      name: {
        type: 'string',
      },
      monthlyPrice: {
        $ref: '#/components/schemas/Money',
      },
      resources: {
        type: 'object',
        required: ['vcpu', 'vcpuKind', 'memoryGb', 'storageGb'],
        properties: {
          vcpu: {
            type: 'integer',
          },
          vcpuKind: {
            type: 'string',
            enum: ['shared'],
          },
          memoryGb: {
            type: 'integer',
          },
          storageGb: {
            type: 'integer',
          },
        },
      },
      runCap: {
        type: 'integer',
      },
      reserveCap: {
        type: 'integer',
      },
      watchedProjectsCap: {
        type: 'integer',
      },
      placeable: {
        type: 'boolean',
      },
    },
  },
  PlanCatalog: {
    type: 'object',
    required: ['homeRegion', 'plans'],
    properties: {
      homeRegion: {
        type: 'string',
      },
      plans: {
        type: 'array',
        items: {
          $ref: '#/components/schemas/Plan',
        },
      },
    },
  },
  Me: {
    type: 'object',
    required: [
      'user',
      'tenantId',
      'role',
      'slug',
      'stackName',
      'homeRegion',
      'billingState',
      'planChangeControls',
      'closeRequestedAt',
      'waitlist',
      'newAccount',
      'formerAccounts',
    ],
    properties: {
      user: {
        type: 'object',
        required: ['id', 'login', 'email'],
        properties: {
          id: {
            type: 'string',
          },
          login: {
            type: 'string',
          },
          email: {
            type: ['string', 'null'],
          },
        },
      },
      tenantId: {
        type: 'string',
      },
      role: {
        type: 'string',
        enum: ['administrator', 'member'],
      },
      slug: {
        type: ['string', 'null'],
      },
      stackName: {
        type: ['string', 'null'],
      },
      homeRegion: {
        type: 'string',
      },
      billingState: {
        type: 'string',
        enum: ['provisioning', 'active', 'past-due', 'suspended', 'decommissioning'],
      },
      planChangeControls: {
        type: 'object',
        description:
          'Whether the Plan Change controls may show: visible only when all five release gates are ready.',
        required: ['visible', 'gates'],
        properties: {
          visible: {
            type: 'boolean',
          },
          gates: {
            type: 'object',
            additionalProperties: {
              type: 'boolean',
            },
          },
        },
      },
      closeRequestedAt: {
        type: ['string', 'null'],
        format: 'date-time',
        description: 'A close the tenant asked for that the sweep has not carried out yet (null: none).',
      },
      waitlist: {
        type: 'array',
        description: 'The Plans the tenant joined the waitlist for, waiting or already told of a place.',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['plan', 'homeRegion', 'joinedAt', 'notified'],
          properties: {
            plan: {
              type: 'string',
              enum: ['standard', 'plus', 'pro'],
            },
            homeRegion: {
              type: 'string',
            },
            joinedAt: {
              type: 'string',
              format: 'date-time',
            },
            notified: {
              type: 'boolean',
            },
          },
        },
      },
      newAccount: {
        type: ['object', 'null'],
        description:
          'Null while the account has not left. Otherwise whether a new account can be started with the same sign-in (POST /v1/tenant/slug with a new slug) and from when: the teardown time while the account still serves or can be exported, null for a close still being carried out.',
        required: ['possible', 'possibleFrom', 'text'],
        properties: {
          possible: {
            type: 'boolean',
          },
          possibleFrom: {
            type: ['string', 'null'],
            format: 'date-time',
          },
          text: {
            type: 'string',
            description: 'The same in words, as the console shows it.',
          },
        },
      },
      formerAccounts: {
        type: 'array',
        description:
          "The person's earlier accounts, oldest first; their billing stays readable with `account=<slug>` on the billing read routes.",
        items: {
          type: 'object',
          required: ['slug', 'leftBy', 'closedAt'],
          properties: {
            slug: {
              type: ['string', 'null'],
            },
            leftBy: {
              type: ['string', 'null'],
              description: 'The reason it left (a history reason).',
            },
            closedAt: {
              type: ['string', 'null'],
              format: 'date-time',
              description: 'When it was torn down.',
            },
          },
        },
      },
    },
  },
  NoCapacity: {
    allOf: [
      {
        $ref: '#/components/schemas/Error',
      },
      {
        type: 'object',
        properties: {
          reason: {
            type: 'string',
            enum: ['no_capacity'],
          },
          availablePlans: {
            type: 'array',
            items: {
              type: 'string',
              enum: ['standard', 'plus', 'pro'],
            },
          },
        },
      },
    ],
  },
  WaitlistEntry: {
    type: 'object',
    required: ['plan', 'homeRegion', 'joinedAt', 'notified', 'placeableNow'],
    properties: {
      plan: {
        type: 'string',
      },
      homeRegion: {
        type: 'string',
      },
      joinedAt: {
        type: 'string',
        format: 'date-time',
      },
      notified: {
        type: 'boolean',
      },
      placeableNow: {
        type: 'boolean',
      },
    },
  },
  Export: {
    type: 'object',
    description: 'An export archive of a Stack (docs/exports.md). Never shows where it is stored.',
    required: [
      'exportId',
      'stackId',
      'status',
      'requestedAt',
      'readyAt',
      'sizeBytes',
      'failureCode',
      'failureReason',
      'availableUntil',
    ],
    properties: {
      exportId: {
        type: 'string',
      },
      stackId: {
        type: 'string',
      },
      status: {
        type: 'string',
        enum: ['requested', 'building', 'ready', 'failed'],
        description:
          "`requested`: waiting for the Stack's Dispatcher; `building`: it is uploading the archive; `ready`: download it; `failed`: see `failureCode` (also an export not ready within 24 hours, or whose Stack was torn down)",
      },
      requestedAt: {
        type: 'string',
        format: 'date-time',
      },
      readyAt: {
        type: ['string', 'null'],
        format: 'date-time',
      },
      sizeBytes: {
        type: ['integer', 'null'],
      },
      failureCode: {
        type: ['string', 'null'],
        enum: [
          'build_failed',
          'upload_incomplete',
          'size_mismatch',
          'build_timed_out',
          'stack_torn_down',
          null,
        ],
        description:
          "Why it failed, a code of ours (docs/exports.md); null unless `failed`. Never the Dispatcher's own words (kept for operators)",
      },
      failureReason: {
        type: ['string', 'null'],
        description: 'The text of `failureCode`: what failed and what to do next',
      },
      availableUntil: {
        type: ['string', 'null'],
        format: 'date-time',
        description: 'Ready archives are kept 7 days',
      },
    },
  },
  ExportList: {
    type: 'object',
    description: "A Stack's exports, newest first",
    required: ['exports'],
    properties: {
      exports: {
        type: 'array',
        maxItems: 20,
        description: 'The 20 newest at most',
        items: {
          $ref: '#/components/schemas/Export',
        },
      },
    },
  },
  Stack: {
    type: 'object',
    description: 'A Stack as the tenant sees it: never a provider id, a storage locator or a credential.',
    required: [
      'stackId',
      'name',
      'address',
      'plan',
      'resources',
      'caps',
      'location',
      'lifecycle',
      'desiredStateVersion',
      'appliedVersion',
      'health',
    ],
    properties: {
      stackId: {
        type: 'string',
      },
      name: {
        type: 'string',
        description: '<slug>.<stack domain> for the first Stack',
      },
      address: {
        type: 'string',
        format: 'uri',
      },
      plan: {
        type: 'string',
        enum: ['standard', 'plus', 'pro'],
      },
      resources: {
        type: 'object',
      },
      caps: {
        type: 'object',
        properties: {
          runCap: {
            type: 'integer',
          },
          reserveCap: {
            type: 'integer',
          },
          watchedProjectsCap: {
            type: 'integer',
          },
        },
      },
      location: {
        type: 'string',
      },
      lifecycle: {
        type: 'string',
        enum: ['creating', 'running', 'decommissioning', 'torn_down'],
      },
      teardownAt: {
        type: ['string', 'null'],
        format: 'date-time',
      },
      desiredStateVersion: {
        type: 'integer',
      },
      appliedVersion: {
        type: ['integer', 'null'],
      },
      health: {
        type: 'string',
        enum: ['healthy', 'unhealthy', 'unknown'],
      },
      activeRuns: {
        type: 'integer',
      },
      lastReportAt: {
        type: ['string', 'null'],
        format: 'date-time',
      },
      reportStale: {
        type: 'boolean',
        description: 'The Dispatcher has reported before but missed two heartbeats (docs/dispatcher.md)',
      },
      projects: {
        type: 'integer',
      },
      createdAt: {
        type: 'string',
        format: 'date-time',
      },
      priceLock: {
        oneOf: [
          {
            $ref: '#/components/schemas/PriceLock',
          },
          {
            type: 'null',
          },
        ],
        description: 'The Founding Price Lock (null: the Stack never had one)',
      },
      localHostExecutor: {
        type: 'boolean',
        description:
          "The Stack's Dispatcher reports a host Executor (a Local Stack): only then is the `ambient` Credential kind accepted.",
      },
    },
  },
  PriceLock: {
    type: 'object',
    description:
      "The Founding Price Lock of a Stack: a founding tenant's first Stack (first subscription completed before Open Signup) keeps the monthly list price it was bought at while the subscription has no break and the Stack stays on that Plan. Confirming a Plan Change of the Stack ends it for good (even if the change then expires, is cancelled or rolls back); the subscription ending ends it too. Tax, metered usage and later changes to a Plan's capacity and quotas are outside it.",
    required: ['state', 'plan', 'monthlyPrice', 'lockedAt', 'endedAt', 'reason'],
    properties: {
      state: {
        type: 'string',
        enum: ['locked', 'ended'],
      },
      plan: {
        type: 'string',
        enum: ['standard', 'plus', 'pro'],
        description: 'The Plan whose price is locked',
      },
      monthlyPrice: {
        $ref: '#/components/schemas/Money',
        description: 'The monthly list price the lock keeps',
      },
      lockedAt: {
        type: 'string',
        format: 'date-time',
      },
      endedAt: {
        type: ['string', 'null'],
        format: 'date-time',
      },
      reason: {
        type: ['string', 'null'],
        enum: ['plan_change_confirmed', 'subscription_cancelled', null],
        description: 'Why it ended (null while locked)',
      },
    },
  },
  PlanChange: {
    type: 'object',
    description:
      'A Plan Change as the tenant sees it (planChangeView): never a processor id, an operator or a storage locator. Amounts are integers in minor units (cents).',
    required: [
      'changeId',
      'stackId',
      'currentPlan',
      'requestedPlan',
      'status',
      'cancellable',
      'confirmedAt',
      'updatedAt',
      'expiresAt',
      'history',
      'recovery',
      'reasonCode',
      'outcome',
      'location',
      'estimate',
      'final',
    ],
    properties: {
      changeId: {
        type: 'string',
        pattern: '^pc_[a-z0-9]{1,40}$',
      },
      stackId: {
        type: 'string',
      },
      currentPlan: {
        type: 'string',
        enum: ['standard', 'plus', 'pro'],
        description: 'The Plan the Stack was on at confirmation',
      },
      requestedPlan: {
        type: 'string',
        enum: ['standard', 'plus', 'pro'],
      },
      status: {
        $ref: '#/components/schemas/PlanChangeStatus',
      },
      cancellable: {
        type: 'boolean',
        description:
          'True while `waiting_for_capacity` or `waiting_for_work`: POST /v1/plan-changes/{changeId}/cancel is allowed',
      },
      confirmedAt: {
        type: 'string',
        format: 'date-time',
      },
      updatedAt: {
        type: 'string',
        format: 'date-time',
      },
      expiresAt: {
        type: 'string',
        format: 'date-time',
        description: 'Confirmation + 7 days: a change still waiting for capacity then ends `expired`',
      },
      history: {
        type: 'array',
        description: 'Every status the change has had, oldest first (the first is the starting status)',
        items: {
          type: 'object',
          required: ['status', 'at'],
          properties: {
            status: {
              $ref: '#/components/schemas/PlanChangeStatus',
            },
            at: {
              type: 'string',
              format: 'date-time',
            },
          },
        },
      },
      recovery: {
        type: 'string',
        description: 'What the tenant can do next, for the current status',
      },
      reasonCode: {
        type: ['string', 'null'],
        enum: [
          'completed',
          'completed_not_billed',
          'drain_timed_out',
          'backup_failed',
          'backup_timed_out',
          'switch_failed',
          'switch_timed_out',
          'verify_failed',
          'verify_timed_out',
          'move_failed',
          'no_capacity_expired',
          'cancelled_by_administrator',
          'cancelled',
          'billing_not_active',
          'billing_overdue',
          'account_closing',
          'stack_teardown',
          'superseded',
          null,
        ],
        description:
          "Why the change ended (or, once a roll back is decided, why it rolls back): a code of ours (docs/plan-changes.md lists each with its text); null while it runs. Never a Dispatcher's or an operator's words",
      },
      outcome: {
        type: ['string', 'null'],
        description:
          'The text of `reasonCode`: what happened, what it means for the Plan and billing, what the tenant can do next; null with it',
      },
      location: {
        type: 'object',
        required: ['from', 'to', 'addressChanged'],
        properties: {
          from: {
            type: 'string',
            description: 'Where the Stack ran at confirmation',
          },
          to: {
            type: ['string', 'null'],
            description: 'Where the replacement goes, once a place is held',
          },
          addressChanged: {
            type: ['boolean', 'null'],
            description:
              "After the switch: the replacement's public IP address differs from the old one (null until known)",
          },
        },
      },
      estimate: {
        type: ['object', 'null'],
        description:
          "The processor's estimate of the next invoice shown at confirmation (null: it could not estimate), as the preview showed it: the invoice as a whole, and the change's own `adjustment` after the current discount with its tax estimate and lines.",
        required: [
          'currency',
          'subtotal',
          'discount',
          'tax',
          'total',
          'amountDue',
          'adjustment',
          'adjustmentTax',
          'adjustmentTotal',
          'invoiceAt',
          'lines',
        ],
        properties: {
          currency: {
            type: 'string',
            description: "The processor's lowercase ISO currency code (e.g. `usd`)",
          },
          subtotal: {
            type: 'integer',
            description: 'The whole next invoice, before its discount and tax',
          },
          discount: {
            type: 'integer',
            description: "The whole next invoice's discount",
          },
          tax: {
            type: 'integer',
            description: "The whole next invoice's tax",
          },
          total: {
            type: 'integer',
          },
          amountDue: {
            type: 'integer',
            description: 'What the card would be charged: the total less any customer credit',
          },
          adjustment: {
            type: 'integer',
            description:
              "The change's own proration lines after the current discount, before tax (negative: a credit). The final adjustment is read on the same basis. Prorations already pending on that invoice (an added Stack's, an earlier change's) are in the total, never here. On changes confirmed before the tax was kept, it was before the discount too",
          },
          adjustmentTax: {
            type: ['integer', 'null'],
            description:
              "The tax estimate on the change's lines (null on changes confirmed before it was kept)",
          },
          adjustmentTotal: {
            type: ['integer', 'null'],
            description: '`adjustment + adjustmentTax` (null on changes confirmed before it was kept)',
          },
          invoiceAt: {
            type: ['string', 'null'],
            format: 'date-time',
            description: 'When the next invoice is made (the billing-cycle date is kept)',
          },
          lines: {
            type: 'array',
            description:
              "The change's own proration lines; `adjustment` is the sum of `amount - discount`, `adjustmentTax` the sum of `tax` (empty on changes confirmed before they were kept)",
            items: {
              $ref: '#/components/schemas/EstimateLine',
            },
          },
        },
      },
      final: {
        type: ['object', 'null'],
        description:
          "Once billing committed (the replacement healthy): the exact adjustment the processor created, its tax and their sum, beside the estimate's, and why they differ; null before",
        required: [
          'adjustment',
          'adjustmentTax',
          'adjustmentTotal',
          'currency',
          'committedAt',
          'estimatedAdjustment',
          'estimatedAdjustmentTax',
          'estimatedAdjustmentTotal',
          'difference',
          'totalDifference',
          'explanation',
        ],
        properties: {
          adjustment: {
            type: 'integer',
            description:
              "The exact adjustment the billing commit created: its pending proration items, each after the discount it was made with, before tax (the estimate's `adjustment` basis)",
          },
          adjustmentTax: {
            type: ['integer', 'null'],
            description:
              'The tax the processor puts on those items on the next invoice (each line taxed after its discount, rounded to the cent); 0 when not billed; null on changes committed before it was kept, or when no next invoice comes',
          },
          adjustmentTotal: {
            type: ['integer', 'null'],
            description:
              "`adjustment` + `adjustmentTax`: what the next invoice's total changes by (negative: lowered); null with `adjustmentTax`",
          },
          estimatedAdjustmentTax: {
            type: ['integer', 'null'],
            description:
              "The estimate's `adjustmentTax` (null: no estimate, or one confirmed before it was kept)",
          },
          estimatedAdjustmentTotal: {
            type: ['integer', 'null'],
            description: "The estimate's `adjustmentTotal` (null as `estimatedAdjustmentTax`)",
          },
          totalDifference: {
            type: ['integer', 'null'],
            description: '`adjustmentTotal` minus `estimatedAdjustmentTotal` (null when either is)',
          },
          currency: {
            type: 'string',
            description: "The processor's lowercase ISO currency code (e.g. `usd`)",
          },
          committedAt: {
            type: 'string',
            format: 'date-time',
          },
          estimatedAdjustment: {
            type: ['integer', 'null'],
            description: "The estimate's `adjustment` (null: no estimate)",
          },
          difference: {
            type: ['integer', 'null'],
            description: '`adjustment` minus `estimatedAdjustment` (null: no estimate)',
          },
          explanation: {
            type: 'string',
          },
        },
      },
    },
  },
  PlanChangeStatus: {
    type: 'string',
    enum: [
      'waiting_for_capacity',
      'waiting_for_work',
      'preparing',
      'switching',
      'verifying',
      'completed',
      'rolled_back',
      'expired',
      'superseded',
      'cancelled',
    ],
    description:
      "`waiting_for_capacity` and `waiting_for_work` can be cancelled; `preparing`, `switching`, `verifying` run to completion or roll back; `completed`, `rolled_back`, `expired`, `superseded` and `cancelled` are final. Only an administrator's cancel ends a change `cancelled`; a change that can no longer go on for a reason of ours (billing overdue, the tenant leaving, the Stack torn down) is `rolled_back` (docs/plan-changes.md)",
  },
  PlanChangeExportLine: {
    description: 'One line of the Plan Change export: the record and the moment of the export',
    allOf: [
      {
        $ref: '#/components/schemas/PlanChange',
      },
      {
        type: 'object',
        required: ['exportedAt'],
        properties: {
          exportedAt: {
            type: 'string',
            format: 'date-time',
          },
        },
      },
    ],
  },
  PlanChangeRefusal: {
    description: 'A refused Plan Change request: the error, and the top-level fields some codes add',
    allOf: [
      {
        $ref: '#/components/schemas/Error',
      },
      {
        type: 'object',
        properties: {
          gatesNotReady: {
            type: 'array',
            description: 'With `plan_changes_unavailable`: the release gates not ready',
            items: {
              type: 'string',
              enum: [
                'plan-catalog',
                'processor-integration',
                'replacement-path',
                'reconciliation-loop',
                'customer-contract',
              ],
            },
          },
          status: {
            $ref: '#/components/schemas/PlanChangeStatus',
            description: "With `plan_change_ended` and `plan_change_not_cancellable`: the change's status",
          },
        },
      },
    ],
  },
  RuntimeProfileEntry: {
    type: 'object',
    additionalProperties: false,
    properties: {
      model: {
        type: 'string',
        minLength: 1,
        maxLength: 100,
      },
      effort: {
        type: 'string',
        enum: ['low', 'medium', 'high'],
      },
    },
  },
  RuntimeProfile: {
    type: 'object',
    description:
      "The model and effort per activity (`intake`: Intake Sessions and Wayfinder work; `dispatch`: ordinary Runs; `guide`: Guide Sessions). For a Thread, a value given for that one Run or session wins, then the Credential's entry for the activity, then the Provider's default; model and effort resolve each on its own.",
    additionalProperties: false,
    properties: {
      intake: {
        $ref: '#/components/schemas/RuntimeProfileEntry',
      },
      dispatch: {
        $ref: '#/components/schemas/RuntimeProfileEntry',
      },
      guide: {
        $ref: '#/components/schemas/RuntimeProfileEntry',
      },
    },
  },
  Credential: {
    type: 'object',
    description: 'A Credential as a tenant sees it: never its secret material.',
    required: [
      'name',
      'provider',
      'kind',
      'usage',
      'runtimeProfile',
      'validation',
      'usable',
      'unusableReason',
      'consent',
      'createdAt',
      'rotatedAt',
      'archivedAt',
    ],
    properties: {
      name: {
        type: 'string',
        pattern: '^[a-z0-9][a-z0-9-]{0,62}$',
      },
      provider: {
        type: 'string',
        enum: ['provider-a', 'provider-b', 'provider-c'],
        description: 'Kept for good: a rotation never changes it',
      },
      kind: {
        type: 'string',
        enum: ['oauth_token', 'auth_file', 'api_key', 'ambient'],
      },
      usage: {
        type: 'string',
        enum: ['metered', 'personal_subscription'],
        description:
          "`metered`: an `api_key`, whose usage the provider charges on top of the flat hosted fee; `personal_subscription`: `oauth_token`, `auth_file` and `ambient` spend the tenant's own subscription with the provider",
      },
      runtimeProfile: {
        $ref: '#/components/schemas/RuntimeProfile',
      },
      validation: {
        type: 'object',
        required: ['state', 'reasonCode', 'reason', 'checkedAt'],
        description:
          "The Stack's Dispatcher checks the material with the provider after each provisioning (`pending` until it reports)",
        properties: {
          state: {
            type: 'string',
            enum: ['pending', 'valid', 'invalid'],
          },
          reasonCode: {
            type: ['string', 'null'],
            enum: ['provider_refused', null],
            description:
              "With `invalid`: why, a code of ours (docs/credentials.md). Never the Dispatcher's own words (kept for operators)",
          },
          reason: {
            type: ['string', 'null'],
            description: 'The text of `reasonCode`: what failed and what to do next',
          },
          checkedAt: {
            type: ['string', 'null'],
            format: 'date-time',
          },
        },
      },
      usable: {
        type: 'boolean',
        description: 'Whether a new Thread or Guide Session can use it now',
      },
      unusableReason: {
        type: ['string', 'null'],
        enum: ['archived', 'validation_failed', 'validation_pending', 'subscription_policy', null],
        description: '`subscription_policy`: the tenant is suspended or leaving',
      },
      consent: {
        type: ['object', 'null'],
        description:
          "The administrator's consent, for the kinds that spend a personal subscription; null for `api_key`",
        required: ['by', 'at', 'textVersion'],
        properties: {
          by: {
            type: 'string',
            description: "The administrator's login",
          },
          at: {
            type: 'string',
            format: 'date-time',
          },
          textVersion: {
            type: 'string',
            description: 'The version of the consent text shown',
          },
        },
      },
      createdAt: {
        type: 'string',
        format: 'date-time',
      },
      rotatedAt: {
        type: ['string', 'null'],
        format: 'date-time',
        description: 'The last rotation (a provisioning of an existing name)',
      },
      archivedAt: {
        type: ['string', 'null'],
        format: 'date-time',
        description: 'Archived: kept but unusable (a new provisioning of the name brings it back)',
      },
    },
  },
  GuideSelection: {
    type: 'object',
    description: "The Stack's Guide Credential: the one Credential every Guide Session uses",
    required: ['name', 'selectedAt', 'usable', 'unusableReason', 'cleared'],
    properties: {
      name: {
        type: ['string', 'null'],
        description: 'The selected Credential; null when none is',
      },
      selectedAt: {
        type: ['string', 'null'],
        format: 'date-time',
      },
      usable: {
        type: 'boolean',
      },
      unusableReason: {
        type: ['string', 'null'],
        enum: ['archived', 'validation_failed', 'validation_pending', 'subscription_policy', null],
      },
      cleared: {
        type: ['object', 'null'],
        description:
          'The last time a selection was cleared: which Credential, why and when. `subscription_policy` is set by the sweep that moves the tenant to `suspended` or `decommissioning`',
        required: ['name', 'reason', 'at'],
        properties: {
          name: {
            type: 'string',
          },
          reason: {
            type: 'string',
            enum: [
              'archived',
              'deleted',
              'validation_failed',
              'subscription_policy',
              'cleared_by_administrator',
            ],
          },
          at: {
            type: 'string',
            format: 'date-time',
          },
        },
      },
    },
  },
  CredentialList: {
    type: 'object',
    required: ['stackId', 'credentials', 'guide'],
    properties: {
      stackId: {
        type: 'string',
      },
      credentials: {
        type: 'array',
        description: 'By name',
        items: {
          $ref: '#/components/schemas/Credential',
        },
      },
      guide: {
        $ref: '#/components/schemas/GuideSelection',
      },
    },
  },
  CredentialCatalog: {
    type: 'object',
    description: 'The Provider catalog (docs/credentials.md)',
    required: ['consent', 'providers', 'activities', 'efforts'],
    properties: {
      consent: {
        type: 'object',
        description: 'The consent text to show before provisioning a kind that needs consent',
        required: ['textVersion', 'text'],
        properties: {
          textVersion: {
            type: 'string',
            description: "What a provisioning's `consent.textVersion` must be, such as 2026-11",
          },
          text: {
            type: 'string',
          },
        },
      },
      providers: {
        type: 'array',
        items: {
          type: 'object',
          required: ['provider', 'name', 'defaults', 'kinds'],
          properties: {
            provider: {
              type: 'string',
              enum: ['provider-a', 'provider-b', 'provider-c'],
            },
            name: {
              type: 'string',
              description: 'For people, such as Provider A',
            },
            defaults: {
              type: 'object',
              description: 'What a blank Runtime Profile entry falls back to',
              required: ['model', 'effort'],
              properties: {
                model: {
                  type: 'string',
                },
                effort: {
                  type: 'string',
                  enum: ['low', 'medium', 'high'],
                },
              },
            },
            kinds: {
              type: 'array',
              description: 'The kinds the Provider accepts, in order',
              items: {
                type: 'object',
                required: ['kind', 'needsConsent', 'localOnly', 'metered'],
                properties: {
                  kind: {
                    type: 'string',
                    enum: ['oauth_token', 'auth_file', 'api_key', 'ambient'],
                  },
                  needsConsent: {
                    type: 'boolean',
                    description: "Spends the tenant's own subscription: a provisioning needs `consent`",
                  },
                  localOnly: {
                    type: 'boolean',
                    description:
                      'Accepted only on a Local Stack whose Dispatcher reports the host Executor (`ambient`)',
                  },
                  metered: {
                    type: 'boolean',
                    description: 'The provider charges its usage on top of the flat hosted fee (`api_key`)',
                  },
                },
              },
            },
          },
        },
      },
      activities: {
        type: 'array',
        description: 'The activities of a Runtime Profile',
        items: {
          type: 'string',
          enum: ['intake', 'dispatch', 'guide'],
        },
      },
      efforts: {
        type: 'array',
        description: 'The efforts a Runtime Profile accepts',
        items: {
          type: 'string',
          enum: ['low', 'medium', 'high'],
        },
      },
    },
  },
  CredentialRoute: {
    type: 'object',
    required: ['primary'],
    additionalProperties: false,
    properties: {
      primary: {
        type: 'string',
        pattern: '^[a-z0-9][a-z0-9-]{0,62}$',
      },
      fallback: {
        type: 'string',
        pattern: '^[a-z0-9][a-z0-9-]{0,62}$',
        description: 'Used when the Primary is not usable; must differ from it',
      },
    },
  },
  CredentialRoutes: {
    type: 'object',
    description: 'Per activity, the Credential a new Thread gets; an activity left out has no route',
    additionalProperties: false,
    properties: {
      intake: {
        $ref: '#/components/schemas/CredentialRoute',
      },
      dispatch: {
        $ref: '#/components/schemas/CredentialRoute',
      },
    },
  },
  CredentialRouteUse: {
    type: 'object',
    required: ['projectId', 'activity', 'position'],
    properties: {
      projectId: {
        type: 'string',
      },
      activity: {
        type: 'string',
        enum: ['intake', 'dispatch'],
      },
      position: {
        type: 'string',
        enum: ['primary', 'fallback'],
      },
    },
  },
  CredentialRefusal: {
    description: 'A refused Credential request: the error, and the top-level fields some codes add',
    allOf: [
      {
        $ref: '#/components/schemas/Error',
      },
      {
        type: 'object',
        properties: {
          accepted: {
            type: 'array',
            items: {
              type: 'string',
              enum: ['oauth_token', 'auth_file', 'api_key', 'ambient'],
            },
            description: 'With `kind_not_accepted`: the kinds the Provider accepts',
          },
          uses: {
            type: 'array',
            items: {
              $ref: '#/components/schemas/CredentialRouteUse',
            },
            description:
              'With `credential_in_use`: every Project, activity and position whose route names the Credential',
          },
          threadCount: {
            type: 'integer',
            description:
              'With `confirmation_required`: the historical Threads bound to the Credential, which will not be resumable (0 when none is: the confirmation is asked for all the same)',
          },
          confirmationToken: {
            type: 'string',
            description:
              'With `confirmation_required`: repeat the DELETE with `?confirmationToken=` to delete',
          },
          expiresAt: {
            type: 'string',
            format: 'date-time',
            description: 'With `confirmation_required`: the token is valid until then (15 minutes)',
          },
          reason: {
            type: 'string',
            description: 'With `credential_unusable`: `archived` or `validation_failed`',
          },
          currentTextVersion: {
            type: 'string',
            description:
              "With `consent_version_unknown`: the current consent text's version (GET /v1/credentials/catalog)",
          },
        },
      },
    ],
  },
  Injection: {
    type: 'object',
    description:
      "What the runtime gets: environment variables (`oauth_token`, `api_key` of provider-a and provider-c), an auth file's JSON text (`auth_file`, and provider-b's `api_key` as the `api_key` field of an auth file), or the host's own login (`ambient`). Secret: keep it only as long as the runtime needs it, never log it.",
    properties: {
      env: {
        type: 'object',
        additionalProperties: {
          type: 'string',
        },
        description: 'Such as `PROVIDER_A_OAUTH_TOKEN`, `PROVIDER_A_API_KEY`, `PROVIDER_C_API_KEY`',
      },
      authFile: {
        type: 'string',
        description: 'The auth file, as JSON text',
      },
      ambient: {
        type: 'boolean',
        enum: [true],
        description: "Use the host's own runtime login",
      },
    },
  },
  ThreadBinding: {
    type: 'object',
    description:
      "A Thread bound for good: its Credential, model and effort, and what to inject (the bound Credential's current material)",
    required: ['threadId', 'activity', 'credential', 'model', 'effort', 'inject'],
    properties: {
      threadId: {
        type: 'string',
      },
      activity: {
        type: 'string',
        enum: ['intake', 'dispatch', 'guide'],
      },
      projectId: {
        type: 'string',
        description: 'Absent for a Guide Session',
      },
      credential: {
        type: 'object',
        required: ['name', 'provider', 'kind', 'position'],
        properties: {
          name: {
            type: 'string',
          },
          provider: {
            type: 'string',
            enum: ['provider-a', 'provider-b', 'provider-c'],
          },
          kind: {
            type: 'string',
            enum: ['oauth_token', 'auth_file', 'api_key', 'ambient'],
          },
          position: {
            type: 'string',
            enum: ['primary', 'fallback', 'guide'],
            description: 'Which part of the route gave it (`guide`: the Guide selection)',
          },
        },
      },
      model: {
        type: 'string',
      },
      effort: {
        type: 'string',
        enum: ['low', 'medium', 'high'],
      },
      inject: {
        $ref: '#/components/schemas/Injection',
      },
    },
  },
  DispatcherCredentialRefusal: {
    description:
      'A refused Dispatcher Credential request: the error, and the top-level fields some codes add',
    allOf: [
      {
        $ref: '#/components/schemas/Error',
      },
      {
        type: 'object',
        properties: {
          currentVersion: {
            type: 'integer',
            description: "With `stale_version`: the Credential's current material version",
          },
          activity: {
            type: 'string',
            enum: ['intake', 'dispatch'],
            description: 'With `no_credential_route` and `no_usable_credential`',
          },
          reasons: {
            type: 'array',
            description: 'With `no_usable_credential`: why each Credential of the route cannot be used',
            items: {
              type: 'object',
              required: ['position', 'name', 'reason'],
              properties: {
                position: {
                  type: 'string',
                  enum: ['primary', 'fallback'],
                },
                name: {
                  type: 'string',
                },
                reason: {
                  type: 'string',
                  enum: [
                    'archived',
                    'validation_failed',
                    'validation_pending',
                    'subscription_policy',
                    'missing',
                  ],
                },
              },
            },
          },
          reason: {
            type: 'string',
            description:
              'With `guide_unavailable`: `none_selected`, `validation_pending` (the selection stays), or why the selection was cleared now (`archived`, `validation_failed`, `subscription_policy`, `deleted`); with `thread_not_resumable`: `credential_deleted`, `archived` or `subscription_policy`',
          },
          credential: {
            type: 'string',
            description:
              'With `guide_unavailable` (except `none_selected`) and `thread_not_resumable`: the Credential concerned',
          },
          cleared: {
            type: 'object',
            description:
              'With `guide_unavailable`: the selection cleared (now, or earlier with `none_selected`)',
            properties: {
              name: {
                type: 'string',
              },
              reason: {
                type: 'string',
                enum: [
                  'archived',
                  'deleted',
                  'validation_failed',
                  'subscription_policy',
                  'cleared_by_administrator',
                ],
              },
              at: {
                type: 'string',
                format: 'date-time',
              },
            },
          },
        },
      },
    ],
  },
  EstimateLine: {
    type: 'object',
    description:
      "One proration line of a change, in our words (never the processor's): a credit for the unused time of what the Stacks were billed at, or a charge for the rest of the billing period on what they are billed at now. The processor credits an item's whole old quantity and charges its whole new one.",
    required: ['description', 'amount', 'discount', 'tax'],
    properties: {
      description: {
        type: 'string',
        examples: ['Credit for the unused time of 1 Plus Stack, from 2026-11-06 to 2026-12-01'],
      },
      amount: {
        type: 'integer',
        description: 'Before the discount; negative for a credit',
      },
      discount: {
        type: 'integer',
        description:
          'What the current discount takes off it (negative on a credit: what was paid was discounted)',
      },
      tax: {
        type: 'integer',
        description: 'The tax estimate on `amount - discount`',
      },
    },
  },
  InvoiceEstimate: {
    type: 'object',
    description:
      "The processor's estimate (invoices.createPreview at this moment) of the next invoice with a change applied: the invoice as a whole, and the change's own share of it after the current discount with its tax estimate and its lines. Integers in minor units (cents).",
    required: [
      'currency',
      'subtotal',
      'discount',
      'tax',
      'total',
      'amountDue',
      'adjustment',
      'adjustmentTax',
      'adjustmentTotal',
      'invoiceAt',
      'lines',
    ],
    properties: {
      currency: {
        type: 'string',
        description: "The processor's lowercase ISO currency code (e.g. `usd`)",
      },
      subtotal: {
        type: 'integer',
        description: 'The whole next invoice, before its discount and tax',
      },
      discount: {
        type: 'integer',
        description: "The whole next invoice's discount",
      },
      tax: {
        type: 'integer',
        description: "The whole next invoice's tax",
      },
      total: {
        type: 'integer',
      },
      amountDue: {
        type: 'integer',
        description: 'What the card would be charged: the total less any customer credit',
      },
      adjustment: {
        type: 'integer',
        description:
          "The change's own proration lines after the current discount, before tax (negative: a credit). The final adjustment is read on the same basis. Prorations already pending on that invoice (an added Stack's, an earlier change's) are in the total, never here",
      },
      adjustmentTax: {
        type: 'integer',
        description: "The tax estimate on the change's lines",
      },
      adjustmentTotal: {
        type: 'integer',
        description:
          "`adjustment + adjustmentTax`: what the change's prorations add to (or take off) the next invoice's total",
      },
      invoiceAt: {
        type: ['string', 'null'],
        format: 'date-time',
        description: 'When the next invoice is made (the billing-cycle date is kept)',
      },
      lines: {
        type: 'array',
        description:
          "The change's own proration lines; `adjustment` is the sum of `amount - discount`, `adjustmentTax` the sum of `tax`",
        items: {
          $ref: '#/components/schemas/EstimateLine',
        },
      },
    },
  },
  InvoiceLine: {
    type: 'object',
    required: [
      'description',
      'item',
      'proration',
      'periodStart',
      'periodEnd',
      'stack',
      'plan',
      'amount',
      'discount',
      'tax',
    ],
    properties: {
      description: {
        type: 'string',
        description:
          "In our words: `s2.acme on Standard` for a Stack's period, or a proration's credit or charge with its days (the processor's own line text is never shown).",
      },
      item: {
        type: 'string',
        description:
          'The same words without the days (`Credit for the unused time of 1 Standard Stack`), for a reader that writes `periodStart` and `periodEnd` in its own format.',
      },
      proration: {
        type: 'boolean',
        description:
          "A credit or charge for the rest of a period (a Stack added, a Plan changed), not a period's price.",
      },
      periodStart: {
        type: 'string',
        format: 'date-time',
        description:
          'The first moment the line bills: a month for a period line, the rest of the period for a proration.',
      },
      periodEnd: {
        type: 'string',
        format: 'date-time',
      },
      stack: {
        type: ['string', 'null'],
        description:
          'The Stack the line is for; null for a proration, or a Stack billed beyond those the tenant has now.',
      },
      plan: {
        type: ['string', 'null'],
        enum: ['standard', 'plus', 'pro', null],
      },
      amount: {
        type: 'integer',
        description: 'Minor units, before the discount; negative: a credit.',
      },
      discount: {
        type: 'integer',
      },
      tax: {
        type: 'integer',
      },
    },
  },
  Invoice: {
    type: 'object',
    description: 'An invoice in minor units; no processor id.',
    required: [
      'number',
      'issuedAt',
      'status',
      'statusText',
      'currency',
      'periodStart',
      'periodEnd',
      'lines',
      'subtotal',
      'discount',
      'tax',
      'total',
      'creditApplied',
      'amountDue',
      'amountPaid',
      'refunded',
      'paidAt',
      'ref',
      'viewUrl',
      'pdfUrl',
    ],
    properties: {
      number: {
        type: ['string', 'null'],
        description: 'The number printed on the invoice (null on the upcoming one).',
      },
      issuedAt: {
        type: 'string',
        format: 'date-time',
      },
      status: {
        type: 'string',
        enum: ['draft', 'open', 'paid', 'void', 'uncollectible'],
      },
      statusText: {
        type: 'string',
        description: 'The status in words.',
      },
      currency: {
        type: 'string',
      },
      periodStart: {
        type: ['string', 'null'],
        format: 'date-time',
      },
      periodEnd: {
        type: ['string', 'null'],
        format: 'date-time',
      },
      lines: {
        type: 'array',
        items: {
          $ref: '#/components/schemas/InvoiceLine',
        },
      },
      subtotal: {
        type: 'integer',
      },
      discount: {
        type: 'integer',
      },
      tax: {
        type: 'integer',
      },
      total: {
        type: 'integer',
      },
      creditApplied: {
        type: 'integer',
        description: 'Account credit used on it (the total less what the card is asked for).',
      },
      amountDue: {
        type: 'integer',
      },
      amountPaid: {
        type: 'integer',
      },
      refunded: {
        type: 'integer',
        description: 'What was refunded of its payments.',
      },
      paidAt: {
        type: ['string', 'null'],
        format: 'date-time',
      },
      ref: {
        type: ['string', 'null'],
        description: "Our reference of the invoice (not the processor's id); null on the upcoming one.",
      },
      viewUrl: {
        type: ['string', 'null'],
        description:
          "Our address of the invoice's page: GET /v1/billing/invoices/{ref}/view, which redirects to the processor's page; null on the upcoming one.",
      },
      pdfUrl: {
        type: ['string', 'null'],
        description:
          "Our address of the invoice's PDF: GET /v1/billing/invoices/{ref}/pdf, which redirects to the processor's PDF; null when it has none (the upcoming one).",
      },
    },
  },
  UpcomingInvoice: {
    allOf: [
      {
        $ref: '#/components/schemas/Invoice',
      },
      {
        type: 'object',
        required: ['invoiceAt'],
        properties: {
          invoiceAt: {
            type: ['string', 'null'],
            format: 'date-time',
            description: 'When the processor makes and charges it.',
          },
        },
      },
    ],
  },
};
