/**
 * The API's answers, in valibot: each named answer schema (the document's components.schemas).
 * lib/openapi converts them to JSON Schema (`@valibot/to-json-schema`) for docs/api/openapi.json,
 * and the integration layer checks every answer a test receives against the document; a
 * route's own answers (those not named here) are in ./operations.ts. A change to an answer's
 * shape is made here, then `npm run openapi`.
 */
import * as v from 'valibot';
import { BILLING_STATES } from '#core/billing-state.ts';
import { ACTIVITIES, CREDENTIAL_KINDS, EFFORTS, PROVIDERS, ROUTED_ACTIVITIES } from '#core/credentials.ts';
import { HEALTH_VALUES } from '#core/dispatcher.ts';
import { EXPORT_STATUSES } from '#core/exports.ts';
import { PLAN_CHANGE_STATUSES } from '#core/plan-change.ts';
import { PLAN_VALUES } from '#core/plans.ts';
import { PRICE_LOCK_END_REASONS, PRICE_LOCK_STATES } from '#core/price-lock.ts';
import { ROLES } from '#core/sessions.ts';
import { EXPORT_FAILURES, GUIDE_CLEARED_REASONS, PLAN_CHANGE_REASONS } from '#core/tenant-reasons.ts';
import { ErrorBodySchema } from '../errors.ts';
import { describedInstant, Instant, Integer, orNull, PlanResources } from './fields.ts';

export const MoneyAnswer = v.object({
  amount: v.pipe(Integer, v.description('Minor units (cents).')),
  currency: v.picklist(['USD']),
});

export const PlanAnswer = v.object({
  value: v.picklist(PLAN_VALUES),
  name: v.string(),
  monthlyPrice: MoneyAnswer,
  resources: PlanResources,
  runCap: Integer,
  reserveCap: Integer,
  watchedProjectsCap: Integer,
  placeable: v.boolean(),
});

export const PlanCatalogAnswer = v.object({ homeRegion: v.string(), plans: v.array(PlanAnswer) });

export const MeAnswer = v.object({
  user: v.object({ id: v.string(), login: v.string(), email: v.nullable(v.string()) }),
  tenantId: v.string(),
  role: v.picklist(ROLES),
  slug: v.nullable(v.string()),
  stackName: v.nullable(v.string()),
  homeRegion: v.string(),
  billingState: v.picklist(BILLING_STATES),
  planChangeControls: v.pipe(
    v.object({ visible: v.boolean(), gates: v.record(v.string(), v.boolean()) }),
    v.description(
      'Whether the Plan Change controls may show: visible only when all five release gates are ready.',
    ),
  ),
  closeRequestedAt: orNull(
    Instant,
    'A close the tenant asked for that the sweep has not carried out yet (null: none).',
  ),
  waitlist: v.pipe(
    v.array(
      v.strictObject({
        plan: v.picklist(PLAN_VALUES),
        homeRegion: v.string(),
        joinedAt: Instant,
        notified: v.boolean(),
      }),
    ),
    v.description('The Plans the tenant joined the waitlist for, waiting or already told of a place.'),
  ),
  newAccount: v.pipe(
    v.nullable(
      v.object({
        possible: v.boolean(),
        possibleFrom: v.nullable(Instant),
        text: v.pipe(v.string(), v.description('The same in words, as the console shows it.')),
      }),
    ),
    v.description(
      'Null while the account has not left. Otherwise whether a new account can be started with the same sign-in (POST /v1/tenant/slug with a new slug) and from when: the teardown time while the account still serves or can be exported, null for a close still being carried out.',
    ),
  ),
  formerAccounts: v.pipe(
    v.array(
      v.object({
        slug: v.nullable(v.string()),
        leftBy: orNull(v.string(), 'The reason it left (a history reason).'),
        closedAt: orNull(Instant, 'When it was torn down.'),
      }),
    ),
    v.description(
      "The person's earlier accounts, oldest first; their billing stays readable with `account=<slug>` on the billing read routes.",
    ),
  ),
});

export const NoCapacityAnswer = v.intersect([
  ErrorBodySchema,
  v.object({
    reason: v.optional(v.picklist(['no_capacity'])),
    availablePlans: v.optional(v.array(v.picklist(PLAN_VALUES))),
  }),
]);

export const WaitlistEntryAnswer = v.object({
  plan: v.string(),
  homeRegion: v.string(),
  joinedAt: Instant,
  notified: v.boolean(),
  placeableNow: v.boolean(),
});

export const ExportAnswer = v.pipe(
  v.object({
    exportId: v.string(),
    stackId: v.string(),
    status: v.pipe(
      v.picklist(EXPORT_STATUSES),
      v.description(
        "`requested`: waiting for the Stack's Dispatcher; `building`: it is uploading the archive; `ready`: download it; `failed`: see `failureCode` (also an export not ready within 24 hours, or whose Stack was torn down)",
      ),
    ),
    requestedAt: Instant,
    readyAt: v.nullable(Instant),
    sizeBytes: v.nullable(Integer),
    failureCode: orNull(
      v.picklist(EXPORT_FAILURES),
      "Why it failed, a code of ours (docs/exports.md); null unless `failed`. Never the Dispatcher's own words (kept for operators)",
    ),
    failureReason: orNull(v.string(), 'The text of `failureCode`: what failed and what to do next'),
    availableUntil: orNull(Instant, 'Ready archives are kept 7 days'),
  }),
  v.description('An export archive of a Stack (docs/exports.md). Never shows where it is stored.'),
);

export const ExportListAnswer = v.pipe(
  v.object({
    exports: v.pipe(v.array(ExportAnswer), v.maxLength(20), v.description('The 20 newest at most')),
  }),
  v.description("A Stack's exports, newest first"),
);

export const PriceLockAnswer = v.pipe(
  v.object({
    state: v.picklist(PRICE_LOCK_STATES),
    plan: v.pipe(v.picklist(PLAN_VALUES), v.description('The Plan whose price is locked')),
    monthlyPrice: v.pipe(MoneyAnswer, v.description('The monthly list price the lock keeps')),
    lockedAt: Instant,
    endedAt: v.nullable(Instant),
    reason: orNull(v.picklist(PRICE_LOCK_END_REASONS), 'Why it ended (null while locked)'),
  }),
  v.description(
    "The Founding Price Lock of a Stack: a founding tenant's first Stack (first subscription completed before Open Signup) keeps the monthly list price it was bought at while the subscription has no break and the Stack stays on that Plan. Confirming a Plan Change of the Stack ends it for good (even if the change then expires, is cancelled or rolls back); the subscription ending ends it too. Tax, metered usage and later changes to a Plan's capacity and quotas are outside it.",
  ),
);

export const StackAnswer = v.pipe(
  v.object({
    stackId: v.string(),
    name: v.pipe(v.string(), v.description('<slug>.<stack domain> for the first Stack')),
    address: v.pipe(v.string(), v.url()),
    plan: v.picklist(PLAN_VALUES),
    resources: v.record(v.string(), v.unknown()),
    caps: v.object({
      runCap: v.optional(Integer),
      reserveCap: v.optional(Integer),
      watchedProjectsCap: v.optional(Integer),
    }),
    location: v.string(),
    lifecycle: v.picklist(['creating', 'running', 'decommissioning', 'torn_down']),
    teardownAt: v.optional(v.nullable(Instant)),
    desiredStateVersion: Integer,
    appliedVersion: v.nullable(Integer),
    health: v.picklist(HEALTH_VALUES),
    activeRuns: v.optional(Integer),
    lastReportAt: v.optional(v.nullable(Instant)),
    reportStale: v.optional(
      v.pipe(
        v.boolean(),
        v.description('The Dispatcher has reported before but missed two heartbeats (docs/dispatcher.md)'),
      ),
    ),
    projects: v.optional(Integer),
    createdAt: v.optional(Instant),
    priceLock: v.optional(
      v.pipe(
        v.union([PriceLockAnswer, v.null()]),
        v.description('The Founding Price Lock (null: the Stack never had one)'),
      ),
    ),
    localHostExecutor: v.optional(
      v.pipe(
        v.boolean(),
        v.description(
          "The Stack's Dispatcher reports a host Executor (a Local Stack): only then is the `ambient` Credential kind accepted.",
        ),
      ),
    ),
  }),
  v.description('A Stack as the tenant sees it: never a provider id, a storage locator or a credential.'),
);

export const PlanChangeStatusAnswer = v.pipe(
  v.picklist(PLAN_CHANGE_STATUSES),
  v.description(
    "`waiting_for_capacity` and `waiting_for_work` can be cancelled; `preparing`, `switching`, `verifying` run to completion or roll back; `completed`, `rolled_back`, `expired`, `superseded` and `cancelled` are final. Only an administrator's cancel ends a change `cancelled`; a change that can no longer go on for a reason of ours (billing overdue, the tenant leaving, the Stack torn down) is `rolled_back` (docs/plan-changes.md)",
  ),
);

export const EstimateLineAnswer = v.pipe(
  v.object({
    description: v.pipe(
      v.string(),
      v.examples(['Credit for the unused time of 1 Plus Stack, from 2026-11-06 to 2026-12-01']),
    ),
    amount: v.pipe(Integer, v.description('Before the discount; negative for a credit')),
    discount: v.pipe(
      Integer,
      v.description(
        'What the current discount takes off it (negative on a credit: what was paid was discounted)',
      ),
    ),
    tax: v.pipe(Integer, v.description('The tax estimate on `amount - discount`')),
  }),
  v.description(
    "One proration line of a change, in our words (never the processor's): a credit for the unused time of what the Stacks were billed at, or a charge for the rest of the billing period on what they are billed at now. The processor credits an item's whole old quantity and charges its whole new one.",
  ),
);

/** An estimate's figures for the next invoice as a whole (the preview's, and the one a Plan Change keeps). */
const invoiceAsAWhole = {
  currency: v.pipe(v.string(), v.description("The processor's lowercase ISO currency code (e.g. `usd`)")),
  subtotal: v.pipe(Integer, v.description('The whole next invoice, before its discount and tax')),
  discount: v.pipe(Integer, v.description("The whole next invoice's discount")),
  tax: v.pipe(Integer, v.description("The whole next invoice's tax")),
  total: Integer,
  amountDue: v.pipe(
    Integer,
    v.description('What the card would be charged: the total less any customer credit'),
  ),
  invoiceAt: orNull(Instant, 'When the next invoice is made (the billing-cycle date is kept)'),
};

export const PlanChangeAnswer = v.pipe(
  v.object({
    changeId: v.pipe(v.string(), v.regex(/^pc_[a-z0-9]{1,40}$/)),
    stackId: v.string(),
    currentPlan: v.pipe(v.picklist(PLAN_VALUES), v.description('The Plan the Stack was on at confirmation')),
    requestedPlan: v.picklist(PLAN_VALUES),
    status: PlanChangeStatusAnswer,
    cancellable: v.pipe(
      v.boolean(),
      v.description(
        'True while `waiting_for_capacity` or `waiting_for_work`: POST /v1/plan-changes/{changeId}/cancel is allowed',
      ),
    ),
    confirmedAt: Instant,
    updatedAt: Instant,
    expiresAt: describedInstant(
      'Confirmation + 7 days: a change still waiting for capacity then ends `expired`',
    ),
    history: v.pipe(
      v.array(v.object({ status: PlanChangeStatusAnswer, at: Instant })),
      v.description('Every status the change has had, oldest first (the first is the starting status)'),
    ),
    recovery: v.pipe(v.string(), v.description('What the tenant can do next, for the current status')),
    reasonCode: orNull(
      v.picklist(PLAN_CHANGE_REASONS),
      "Why the change ended (or, once a roll back is decided, why it rolls back): a code of ours (docs/plan-changes.md lists each with its text); null while it runs. Never a Dispatcher's or an operator's words",
    ),
    outcome: orNull(
      v.string(),
      'The text of `reasonCode`: what happened, what it means for the Plan and billing, what the tenant can do next; null with it',
    ),
    location: v.object({
      from: v.pipe(v.string(), v.description('Where the Stack ran at confirmation')),
      to: orNull(v.string(), 'Where the replacement goes, once a place is held'),
      addressChanged: orNull(
        v.boolean(),
        "After the switch: the replacement's public IP address differs from the old one (null until known)",
      ),
    }),
    estimate: v.pipe(
      v.nullable(
        v.object({
          ...invoiceAsAWhole,
          adjustment: v.pipe(
            Integer,
            v.description(
              "The change's own proration lines after the current discount, before tax (negative: a credit). The final adjustment is read on the same basis. Prorations already pending on that invoice (an added Stack's, an earlier change's) are in the total, never here. On changes confirmed before the tax was kept, it was before the discount too",
            ),
          ),
          adjustmentTax: orNull(
            Integer,
            "The tax estimate on the change's lines (null on changes confirmed before it was kept)",
          ),
          adjustmentTotal: orNull(
            Integer,
            '`adjustment + adjustmentTax` (null on changes confirmed before it was kept)',
          ),
          lines: v.pipe(
            v.array(EstimateLineAnswer),
            v.description(
              "The change's own proration lines; `adjustment` is the sum of `amount - discount`, `adjustmentTax` the sum of `tax` (empty on changes confirmed before they were kept)",
            ),
          ),
        }),
      ),
      v.description(
        "The processor's estimate of the next invoice shown at confirmation (null: it could not estimate), as the preview showed it: the invoice as a whole, and the change's own `adjustment` after the current discount with its tax estimate and lines.",
      ),
    ),
    final: v.pipe(
      v.nullable(
        v.object({
          adjustment: v.pipe(
            Integer,
            v.description(
              "The exact adjustment the billing commit created: its pending proration items, each after the discount it was made with, before tax (the estimate's `adjustment` basis)",
            ),
          ),
          adjustmentTax: orNull(
            Integer,
            'The tax the processor puts on those items on the next invoice (each line taxed after its discount, rounded to the cent); 0 when not billed; null on changes committed before it was kept, or when no next invoice comes',
          ),
          adjustmentTotal: orNull(
            Integer,
            "`adjustment` + `adjustmentTax`: what the next invoice's total changes by (negative: lowered); null with `adjustmentTax`",
          ),
          estimatedAdjustmentTax: orNull(
            Integer,
            "The estimate's `adjustmentTax` (null: no estimate, or one confirmed before it was kept)",
          ),
          estimatedAdjustmentTotal: orNull(
            Integer,
            "The estimate's `adjustmentTotal` (null as `estimatedAdjustmentTax`)",
          ),
          totalDifference: orNull(
            Integer,
            '`adjustmentTotal` minus `estimatedAdjustmentTotal` (null when either is)',
          ),
          currency: v.pipe(
            v.string(),
            v.description("The processor's lowercase ISO currency code (e.g. `usd`)"),
          ),
          committedAt: Instant,
          estimatedAdjustment: orNull(Integer, "The estimate's `adjustment` (null: no estimate)"),
          difference: orNull(Integer, '`adjustment` minus `estimatedAdjustment` (null: no estimate)'),
          explanation: v.string(),
        }),
      ),
      v.description(
        "Once billing committed (the replacement healthy): the exact adjustment the processor created, its tax and their sum, beside the estimate's, and why they differ; null before",
      ),
    ),
  }),
  v.description(
    'A Plan Change as the tenant sees it (planChangeView): never a processor id, an operator or a storage locator. Amounts are integers in minor units (cents).',
  ),
);

export const PlanChangeExportLineAnswer = v.pipe(
  v.intersect([PlanChangeAnswer, v.object({ exportedAt: Instant })]),
  v.description('One line of the Plan Change export: the record and the moment of the export'),
);

export const PlanChangeRefusalAnswer = v.pipe(
  v.intersect([
    ErrorBodySchema,
    v.object({
      gatesNotReady: v.optional(
        v.pipe(
          v.array(
            v.picklist([
              'plan-catalog',
              'processor-integration',
              'replacement-path',
              'reconciliation-loop',
              'customer-contract',
            ]),
          ),
          v.description('With `plan_changes_unavailable`: the release gates not ready'),
        ),
      ),
      status: v.optional(
        v.pipe(
          PlanChangeStatusAnswer,
          v.description("With `plan_change_ended` and `plan_change_not_cancellable`: the change's status"),
        ),
      ),
    }),
  ]),
  v.description('A refused Plan Change request: the error, and the top-level fields some codes add'),
);

export const RuntimeProfileEntryAnswer = v.strictObject({
  model: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(100))),
  effort: v.optional(v.picklist(EFFORTS)),
});

export const RuntimeProfileAnswer = v.pipe(
  v.strictObject({
    intake: v.optional(RuntimeProfileEntryAnswer),
    dispatch: v.optional(RuntimeProfileEntryAnswer),
    guide: v.optional(RuntimeProfileEntryAnswer),
  }),
  v.description(
    "The model and effort per activity (`intake`: Intake Sessions and Wayfinder work; `dispatch`: ordinary Runs; `guide`: Guide Sessions). For a Thread, a value given for that one Run or session wins, then the Credential's entry for the activity, then the Provider's default; model and effort resolve each on its own.",
  ),
);

export const CredentialAnswer = v.pipe(
  v.object({
    name: v.pipe(v.string(), v.regex(/^[a-z0-9][a-z0-9-]{0,62}$/)),
    provider: v.pipe(v.picklist(PROVIDERS), v.description('Kept for good: a rotation never changes it')),
    kind: v.picklist(CREDENTIAL_KINDS),
    usage: v.pipe(
      v.picklist(['metered', 'personal_subscription']),
      v.description(
        "`metered`: an `api_key`, whose usage the provider charges on top of the flat hosted fee; `personal_subscription`: `oauth_token`, `auth_file` and `ambient` spend the tenant's own subscription with the provider",
      ),
    ),
    runtimeProfile: RuntimeProfileAnswer,
    validation: v.pipe(
      v.object({
        state: v.picklist(['pending', 'valid', 'invalid']),
        reasonCode: orNull(
          v.picklist(['provider_refused']),
          "With `invalid`: why, a code of ours (docs/credentials.md). Never the Dispatcher's own words (kept for operators)",
        ),
        reason: orNull(v.string(), 'The text of `reasonCode`: what failed and what to do next'),
        checkedAt: v.nullable(Instant),
      }),
      v.description(
        "The Stack's Dispatcher checks the material with the provider after each provisioning (`pending` until it reports)",
      ),
    ),
    usable: v.pipe(v.boolean(), v.description('Whether a new Thread or Guide Session can use it now')),
    unusableReason: orNull(
      v.picklist(['archived', 'validation_failed', 'validation_pending', 'subscription_policy']),
      '`subscription_policy`: the tenant is suspended or leaving',
    ),
    consent: v.pipe(
      v.nullable(
        v.object({
          by: v.pipe(v.string(), v.description("The administrator's login")),
          at: Instant,
          textVersion: v.pipe(v.string(), v.description('The version of the consent text shown')),
        }),
      ),
      v.description(
        "The administrator's consent, for the kinds that spend a personal subscription; null for `api_key`",
      ),
    ),
    createdAt: Instant,
    rotatedAt: orNull(Instant, 'The last rotation (a provisioning of an existing name)'),
    archivedAt: orNull(
      Instant,
      'Archived: kept but unusable (a new provisioning of the name brings it back)',
    ),
  }),
  v.description('A Credential as a tenant sees it: never its secret material.'),
);

export const GuideSelectionAnswer = v.pipe(
  v.object({
    name: orNull(v.string(), 'The selected Credential; null when none is'),
    selectedAt: v.nullable(Instant),
    usable: v.boolean(),
    unusableReason: v.nullable(
      v.picklist(['archived', 'validation_failed', 'validation_pending', 'subscription_policy']),
    ),
    cleared: v.pipe(
      v.nullable(
        v.object({
          name: v.string(),
          reason: v.picklist(GUIDE_CLEARED_REASONS),
          at: Instant,
        }),
      ),
      v.description(
        'The last time a selection was cleared: which Credential, why and when. `subscription_policy` is set by the sweep that moves the tenant to `suspended` or `decommissioning`',
      ),
    ),
  }),
  v.description("The Stack's Guide Credential: the one Credential every Guide Session uses"),
);

export const CredentialListAnswer = v.object({
  stackId: v.string(),
  credentials: v.pipe(v.array(CredentialAnswer), v.description('By name')),
  guide: GuideSelectionAnswer,
});

export const CredentialCatalogAnswer = v.pipe(
  v.object({
    consent: v.pipe(
      v.object({
        textVersion: v.pipe(
          v.string(),
          v.description("What a provisioning's `consent.textVersion` must be, such as 2026-11"),
        ),
        text: v.string(),
      }),
      v.description('The consent text to show before provisioning a kind that needs consent'),
    ),
    providers: v.array(
      v.object({
        provider: v.picklist(PROVIDERS),
        name: v.pipe(v.string(), v.description('For people, such as Provider A')),
        defaults: v.pipe(
          v.object({ model: v.string(), effort: v.picklist(EFFORTS) }),
          v.description('What a blank Runtime Profile entry falls back to'),
        ),
        kinds: v.pipe(
          v.array(
            v.object({
              kind: v.picklist(CREDENTIAL_KINDS),
              needsConsent: v.pipe(
                v.boolean(),
                v.description("Spends the tenant's own subscription: a provisioning needs `consent`"),
              ),
              localOnly: v.pipe(
                v.boolean(),
                v.description(
                  'Accepted only on a Local Stack whose Dispatcher reports the host Executor (`ambient`)',
                ),
              ),
              metered: v.pipe(
                v.boolean(),
                v.description('The provider charges its usage on top of the flat hosted fee (`api_key`)'),
              ),
            }),
          ),
          v.description('The kinds the Provider accepts, in order'),
        ),
      }),
    ),
    activities: v.pipe(v.array(v.picklist(ACTIVITIES)), v.description('The activities of a Runtime Profile')),
    efforts: v.pipe(v.array(v.picklist(EFFORTS)), v.description('The efforts a Runtime Profile accepts')),
  }),
  v.description('The Provider catalog (docs/credentials.md)'),
);

export const CredentialRouteAnswer = v.strictObject({
  primary: v.pipe(v.string(), v.regex(/^[a-z0-9][a-z0-9-]{0,62}$/)),
  fallback: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^[a-z0-9][a-z0-9-]{0,62}$/),
      v.description('Used when the Primary is not usable; must differ from it'),
    ),
  ),
});

export const CredentialRoutesAnswer = v.pipe(
  v.strictObject({ intake: v.optional(CredentialRouteAnswer), dispatch: v.optional(CredentialRouteAnswer) }),
  v.description('Per activity, the Credential a new Thread gets; an activity left out has no route'),
);

export const CredentialRouteUseAnswer = v.object({
  projectId: v.string(),
  activity: v.picklist(ROUTED_ACTIVITIES),
  position: v.picklist(['primary', 'fallback']),
});

export const CredentialRefusalAnswer = v.pipe(
  v.intersect([
    ErrorBodySchema,
    v.object({
      accepted: v.optional(
        v.pipe(
          v.array(v.picklist(CREDENTIAL_KINDS)),
          v.description('With `kind_not_accepted`: the kinds the Provider accepts'),
        ),
      ),
      uses: v.optional(
        v.pipe(
          v.array(CredentialRouteUseAnswer),
          v.description(
            'With `credential_in_use`: every Project, activity and position whose route names the Credential',
          ),
        ),
      ),
      threadCount: v.optional(
        v.pipe(
          Integer,
          v.description(
            'With `confirmation_required`: the historical Threads bound to the Credential, which will not be resumable (0 when none is: the confirmation is asked for all the same)',
          ),
        ),
      ),
      confirmationToken: v.optional(
        v.pipe(
          v.string(),
          v.description(
            'With `confirmation_required`: repeat the DELETE with `?confirmationToken=` to delete',
          ),
        ),
      ),
      expiresAt: v.optional(
        describedInstant('With `confirmation_required`: the token is valid until then (15 minutes)'),
      ),
      reason: v.optional(
        v.pipe(v.string(), v.description('With `credential_unusable`: `archived` or `validation_failed`')),
      ),
      currentTextVersion: v.optional(
        v.pipe(
          v.string(),
          v.description(
            "With `consent_version_unknown`: the current consent text's version (GET /v1/credentials/catalog)",
          ),
        ),
      ),
    }),
  ]),
  v.description('A refused Credential request: the error, and the top-level fields some codes add'),
);

export const InjectionAnswer = v.pipe(
  v.object({
    env: v.optional(
      v.pipe(
        v.record(v.string(), v.string()),
        v.description('Such as `PROVIDER_A_OAUTH_TOKEN`, `PROVIDER_A_API_KEY`, `PROVIDER_C_API_KEY`'),
      ),
    ),
    authFile: v.optional(v.pipe(v.string(), v.description('The auth file, as JSON text'))),
    ambient: v.optional(v.pipe(v.literal(true), v.description("Use the host's own runtime login"))),
  }),
  v.description(
    "What the runtime gets: environment variables (`oauth_token`, `api_key` of provider-a and provider-c), an auth file's JSON text (`auth_file`, and provider-b's `api_key` as the `api_key` field of an auth file), or the host's own login (`ambient`). Secret: keep it only as long as the runtime needs it, never log it.",
  ),
);

export const ThreadBindingAnswer = v.pipe(
  v.object({
    threadId: v.string(),
    activity: v.picklist(ACTIVITIES),
    projectId: v.optional(v.pipe(v.string(), v.description('Absent for a Guide Session'))),
    credential: v.object({
      name: v.string(),
      provider: v.picklist(PROVIDERS),
      kind: v.picklist(CREDENTIAL_KINDS),
      position: v.pipe(
        v.picklist(['primary', 'fallback', 'guide']),
        v.description('Which part of the route gave it (`guide`: the Guide selection)'),
      ),
    }),
    model: v.string(),
    effort: v.picklist(EFFORTS),
    inject: InjectionAnswer,
  }),
  v.description(
    "A Thread bound for good: its Credential, model and effort, and what to inject (the bound Credential's current material)",
  ),
);

export const DispatcherCredentialRefusalAnswer = v.pipe(
  v.intersect([
    ErrorBodySchema,
    v.object({
      currentVersion: v.optional(
        v.pipe(Integer, v.description("With `stale_version`: the Credential's current material version")),
      ),
      activity: v.optional(
        v.pipe(
          v.picklist(ROUTED_ACTIVITIES),
          v.description('With `no_credential_route` and `no_usable_credential`'),
        ),
      ),
      reasons: v.optional(
        v.pipe(
          v.array(
            v.object({
              position: v.picklist(['primary', 'fallback']),
              name: v.string(),
              reason: v.picklist([
                'archived',
                'validation_failed',
                'validation_pending',
                'subscription_policy',
                'missing',
              ]),
            }),
          ),
          v.description('With `no_usable_credential`: why each Credential of the route cannot be used'),
        ),
      ),
      reason: v.optional(
        v.pipe(
          v.string(),
          v.description(
            'With `guide_unavailable`: `none_selected`, `validation_pending` (the selection stays), or why the selection was cleared now (`archived`, `validation_failed`, `subscription_policy`, `deleted`); with `thread_not_resumable`: `credential_deleted`, `archived` or `subscription_policy`',
          ),
        ),
      ),
      credential: v.optional(
        v.pipe(
          v.string(),
          v.description(
            'With `guide_unavailable` (except `none_selected`) and `thread_not_resumable`: the Credential concerned',
          ),
        ),
      ),
      cleared: v.optional(
        v.pipe(
          v.object({
            name: v.optional(v.string()),
            reason: v.optional(v.picklist(GUIDE_CLEARED_REASONS)),
            at: v.optional(Instant),
          }),
          v.description(
            'With `guide_unavailable`: the selection cleared (now, or earlier with `none_selected`)',
          ),
        ),
      ),
    }),
  ]),
  v.description(
    'A refused Dispatcher Credential request: the error, and the top-level fields some codes add',
  ),
);

export const InvoiceEstimateAnswer = v.pipe(
  v.object({
    ...invoiceAsAWhole,
    adjustment: v.pipe(
      Integer,
      v.description(
        "The change's own proration lines after the current discount, before tax (negative: a credit). The final adjustment is read on the same basis. Prorations already pending on that invoice (an added Stack's, an earlier change's) are in the total, never here",
      ),
    ),
    adjustmentTax: v.pipe(Integer, v.description("The tax estimate on the change's lines")),
    adjustmentTotal: v.pipe(
      Integer,
      v.description(
        "`adjustment + adjustmentTax`: what the change's prorations add to (or take off) the next invoice's total",
      ),
    ),
    lines: v.pipe(
      v.array(EstimateLineAnswer),
      v.description(
        "The change's own proration lines; `adjustment` is the sum of `amount - discount`, `adjustmentTax` the sum of `tax`",
      ),
    ),
  }),
  v.description(
    "The processor's estimate (invoices.createPreview at this moment) of the next invoice with a change applied: the invoice as a whole, and the change's own share of it after the current discount with its tax estimate and its lines. Integers in minor units (cents).",
  ),
);

export const InvoiceLineAnswer = v.object({
  description: v.pipe(
    v.string(),
    v.description(
      "In our words: `s2.acme on Standard` for a Stack's period, or a proration's credit or charge with its days (the processor's own line text is never shown).",
    ),
  ),
  item: v.pipe(
    v.string(),
    v.description(
      'The same words without the days (`Credit for the unused time of 1 Standard Stack`), for a reader that writes `periodStart` and `periodEnd` in its own format.',
    ),
  ),
  proration: v.pipe(
    v.boolean(),
    v.description(
      "A credit or charge for the rest of a period (a Stack added, a Plan changed), not a period's price.",
    ),
  ),
  periodStart: describedInstant(
    'The first moment the line bills: a month for a period line, the rest of the period for a proration.',
  ),
  periodEnd: Instant,
  stack: orNull(
    v.string(),
    'The Stack the line is for; null for a proration, or a Stack billed beyond those the tenant has now.',
  ),
  plan: v.nullable(v.picklist(PLAN_VALUES)),
  amount: v.pipe(Integer, v.description('Minor units, before the discount; negative: a credit.')),
  discount: Integer,
  tax: Integer,
});

export const InvoiceAnswer = v.pipe(
  v.object({
    number: orNull(v.string(), 'The number printed on the invoice (null on the upcoming one).'),
    issuedAt: Instant,
    status: v.picklist(['draft', 'open', 'paid', 'void', 'uncollectible']),
    statusText: v.pipe(v.string(), v.description('The status in words.')),
    currency: v.string(),
    periodStart: v.nullable(Instant),
    periodEnd: v.nullable(Instant),
    lines: v.array(InvoiceLineAnswer),
    subtotal: Integer,
    discount: Integer,
    tax: Integer,
    total: Integer,
    creditApplied: v.pipe(
      Integer,
      v.description('Account credit used on it (the total less what the card is asked for).'),
    ),
    amountDue: Integer,
    amountPaid: Integer,
    refunded: v.pipe(Integer, v.description('What was refunded of its payments.')),
    paidAt: v.nullable(Instant),
    ref: orNull(
      v.string(),
      "Our reference of the invoice (not the processor's id); null on the upcoming one.",
    ),
    viewUrl: orNull(
      v.string(),
      "Our address of the invoice's page: GET /v1/billing/invoices/{ref}/view, which redirects to the processor's page; null on the upcoming one.",
    ),
    pdfUrl: orNull(
      v.string(),
      "Our address of the invoice's PDF: GET /v1/billing/invoices/{ref}/pdf, which redirects to the processor's PDF; null when it has none (the upcoming one).",
    ),
  }),
  v.description('An invoice in minor units; no processor id.'),
);

export const UpcomingInvoiceAnswer = v.intersect([
  InvoiceAnswer,
  v.object({
    invoiceAt: orNull(Instant, 'When the processor makes and charges it.'),
  }),
]);

/** A Project of a Stack: a repository it watches, with its credential routes. */
export const ProjectAnswer = v.object({
  projectId: v.optional(v.string()),
  name: v.optional(v.string()),
  repository: v.optional(v.string()),
  registeredAt: v.optional(Instant),
  credentialRoutes: v.optional(CredentialRoutesAnswer),
});

/** Every named answer schema, by the name the document gives it (its components.schemas). */
export const ANSWER_DEFINITIONS = {
  Project: ProjectAnswer,
  Money: MoneyAnswer,
  Plan: PlanAnswer,
  PlanCatalog: PlanCatalogAnswer,
  Me: MeAnswer,
  NoCapacity: NoCapacityAnswer,
  WaitlistEntry: WaitlistEntryAnswer,
  Export: ExportAnswer,
  ExportList: ExportListAnswer,
  PriceLock: PriceLockAnswer,
  Stack: StackAnswer,
  PlanChangeStatus: PlanChangeStatusAnswer,
  EstimateLine: EstimateLineAnswer,
  PlanChange: PlanChangeAnswer,
  PlanChangeExportLine: PlanChangeExportLineAnswer,
  PlanChangeRefusal: PlanChangeRefusalAnswer,
  RuntimeProfileEntry: RuntimeProfileEntryAnswer,
  RuntimeProfile: RuntimeProfileAnswer,
  Credential: CredentialAnswer,
  GuideSelection: GuideSelectionAnswer,
  CredentialList: CredentialListAnswer,
  CredentialCatalog: CredentialCatalogAnswer,
  CredentialRoute: CredentialRouteAnswer,
  CredentialRoutes: CredentialRoutesAnswer,
  CredentialRouteUse: CredentialRouteUseAnswer,
  CredentialRefusal: CredentialRefusalAnswer,
  Injection: InjectionAnswer,
  ThreadBinding: ThreadBindingAnswer,
  DispatcherCredentialRefusal: DispatcherCredentialRefusalAnswer,
  InvoiceEstimate: InvoiceEstimateAnswer,
  InvoiceLine: InvoiceLineAnswer,
  Invoice: InvoiceAnswer,
  UpcomingInvoice: UpcomingInvoiceAnswer,
};
