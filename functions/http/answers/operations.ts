/**
 * Each operation's own answers in valibot, by route id (lib/routes.ts), status and media type,
 * and the schemas of the extra fields its refusals add, by status: those not named in
 * ./schemas.ts. lib/openapi reads them for docs/api/openapi.json.
 */
import type { GenericSchema } from 'valibot';
import * as v from 'valibot';
import { BILLING_STATES } from '#core/billing-state.ts';
import { CREDENTIAL_KINDS, PROVIDERS } from '#core/credentials.ts';
import { PLAN_VALUES } from '#core/plans.ts';
import { PRICE_LOCK_END_REASONS } from '#core/price-lock.ts';
import { OPERATION_STEPS, STACK_LIFECYCLES } from '#core/stacks.ts';
import { ErrorBodySchema } from '../errors.ts';
import { describedInstant, Instant, Integer, orNull, PlanResources } from './fields.ts';
import * as answers from './schemas.ts';

export interface OperationAnswers {
  /** The answers that are not refusals: status, then media type. */
  answers?: Record<string, Record<string, GenericSchema>>;
  /** The body of a refusal whose fields go beyond the error's, by status. */
  refusals?: Record<string, GenericSchema>;
}

/** An operation whose one answer (other than refusals) is JSON, and what its refusals add, by status. */
const jsonAnswer = (
  status: string,
  answer: GenericSchema,
  refusals?: Record<string, GenericSchema>,
): OperationAnswers => ({
  answers: { [status]: { 'application/json': answer } },
  ...(refusals ? { refusals } : {}),
});

/** A Plan Change preview's two sides (the current Plan and the requested one) share these fields. */
const PREVIEW_PLAN_SIDE = {
  plan: v.optional(v.string()),
  monthlyPrice: v.optional(answers.MoneyAnswer),
  resources: v.optional(v.record(v.string(), v.unknown())),
  quotas: v.optional(v.record(v.string(), v.unknown())),
};

export const OPERATION_ANSWERS: Record<string, OperationAnswers> = {
  AuthCallback: { answers: { '200': { 'application/json': v.object({ sessionToken: v.string() }) } } },
  GetMe: jsonAnswer('200', answers.MeAnswer),
  PostTenantSlug: jsonAnswer(
    '200',
    v.object({
      slug: v.string(),
      stackName: v.pipe(v.string(), v.description('`<slug>.<stack_domain>`')),
      newAccount: v.optional(
        v.pipe(
          v.literal(true),
          v.description('Present when this call started a new account (a returning customer).'),
        ),
      ),
    }),
  ),
  GetBillingPlans: jsonAnswer('200', answers.PlanCatalogAnswer),
  GetBillingStatus: jsonAnswer(
    '200',
    v.object({
      billingState: v.picklist(BILLING_STATES),
      graceDeadline: v.nullable(Instant),
      history: v.array(
        v.object({
          at: Instant,
          from: v.string(),
          to: v.string(),
          reason: v.pipe(
            v.string(),
            v.description(
              'checkout_completed, payment_failed, past_due_grace_elapsed, suspended_grace_elapsed, payment_recovered, cancelled_in_portal, cancelled_by_operator, cancelled_after_failed_payments, cancelled_payment_disputed, refund_granted, closed_by_tenant',
            ),
          ),
        }),
      ),
      closing: v.optional(
        v.pipe(
          v.object({
            reason: v.nullable(v.string()),
            teardownAt: orNull(
              Instant,
              'After a portal cancel, the end of the paid period (the Stacks serve until then); otherwise the end of the export window.',
            ),
            stacksServeUntilTeardown: v.boolean(),
            billingStopped: v.pipe(
              v.boolean(),
              v.description('The processor confirmed nothing more will be billed.'),
            ),
            tornDown: v.boolean(),
            youCanStill: v.string(),
          }),
          v.description(
            'Present only while decommissioning: why, when the Stacks are torn down, and what the tenant may still do.',
          ),
        ),
      ),
      moneyBack: v.pipe(
        v.object({
          supportEmail: v.string(),
          windowEndsAt: orNull(
            Instant,
            '14 × 24 hours after the payment of the first invoice above zero (null until the sweep has seen one)',
          ),
          available: v.pipe(
            v.boolean(),
            v.description(
              'Only an active account, within the window, that has not used it (nor has the person with an earlier account).',
            ),
          ),
          used: v.nullable(
            v.object({
              requestedAt: Instant,
              grantedAt: Instant,
              refundedAmount: v.pipe(Integer, v.description('Minor units')),
              refunds: Integer,
              currency: v.string(),
            }),
          ),
          reminder: v.string(),
          usedByEarlierAccount: orNull(
            v.object({ slug: v.nullable(v.string()), grantedAt: Instant }),
            "The refund was used with the person's earlier account (it is once per person): with which (slug) and when.",
          ),
        }),
        v.description(
          "The money-back refund: where to write (with the account's address and the slug), until when, whether it can still be asked for, the grant once made, and the reminder to export first.",
        ),
      ),
      priceLock: v.pipe(
        v.object({
          founding: v.boolean(),
          lockedStacks: Integer,
          ended: v.array(
            v.object({
              stackId: v.string(),
              plan: v.string(),
              endedAt: v.nullable(Instant),
              reason: v.picklist(PRICE_LOCK_END_REASONS),
            }),
          ),
        }),
        v.description(
          'The Founding Price Lock: whether the tenant is founding (its first subscription completed before Open Signup), how many Stacks keep their locked price now, and the locks that ended. Stacks show theirs in GET /v1/stacks.',
        ),
      ),
    }),
  ),
  GetBillingSummary: jsonAnswer(
    '200',
    v.object({
      paymentMethod: v.nullable(
        v.object({
          brand: v.string(),
          last4: v.string(),
          expMonth: Integer,
          expYear: Integer,
        }),
      ),
      currentInvoice: v.union([answers.InvoiceAnswer, v.null()]),
      nextInvoice: v.union([answers.UpcomingInvoiceAnswer, v.null()]),
    }),
  ),
  GetBillingInvoices: jsonAnswer(
    '200',
    v.object({
      invoices: v.array(answers.InvoiceAnswer),
      next: orNull(v.string(), 'The cursor of the next page; null: this is the last.'),
    }),
  ),
  PostBillingCheckout: {
    answers: { '200': { 'application/json': v.object({ url: v.pipe(v.string(), v.url()) }) } },
    refusals: { '409': answers.NoCapacityAnswer },
  },
  PostBillingWaitlist: {
    answers: {
      '200': { 'application/json': answers.WaitlistEntryAnswer },
      '201': { 'application/json': answers.WaitlistEntryAnswer },
    },
  },
  PostBillingPortal: {
    answers: { '200': { 'application/json': v.object({ url: v.pipe(v.string(), v.url()) }) } },
  },
  PostTenantClose: jsonAnswer(
    '202',
    v.object({
      closeRequestedAt: Instant,
      message: v.string(),
    }),
  ),
  GetStacks: {
    answers: {
      '200': { 'application/json': v.object({ stacks: v.optional(v.array(answers.StackAnswer)) }) },
    },
  },
  PostStacks: {
    answers: { '201': { 'application/json': answers.StackAnswer } },
    refusals: {
      '503': v.intersect([
        ErrorBodySchema,
        v.object({
          retryAfterSeconds: v.pipe(
            v.number(),
            v.integer(),
            v.minValue(1),
            v.maxValue(30),
            v.description('Seconds to wait before retrying.'),
          ),
        }),
      ]),
    },
  },
  PostStacksPreview: jsonAnswer(
    '200',
    v.object({
      plan: v.optional(v.string()),
      monthlyPrice: v.optional(answers.MoneyAnswer),
      estimatedAt: v.optional(Instant),
      estimate: v.optional(answers.InvoiceEstimateAnswer),
    }),
  ),
  GetStack: jsonAnswer('200', answers.StackAnswer),
  PostStackDispatcherCredential: jsonAnswer(
    '201',
    v.object({
      credentialId: v.string(),
      credential: v.string(),
      issuedAt: Instant,
      previousCredentialValidUntil: v.nullable(Instant),
    }),
  ),
  PostStackProject: jsonAnswer('201', answers.ProjectAnswer),
  GetStackProjects: jsonAnswer(
    '200',
    v.object({
      watchedProjectsCap: v.optional(Integer),
      projects: v.optional(v.array(answers.ProjectAnswer)),
    }),
  ),
  PostPlanChangePreview: jsonAnswer(
    '200',
    v.object({
      stackId: v.optional(v.string()),
      current: v.optional(v.object(PREVIEW_PLAN_SIDE)),
      requested: v.optional(
        v.object({
          ...PREVIEW_PLAN_SIDE,
          capacity: v.optional(
            v.pipe(
              v.picklist(['placeable_in_location', 'placeable_elsewhere_in_home_region', 'would_queue']),
              v.description(
                "Where the requested Plan can be placed now: in the Stack's location (the change starts at once), elsewhere in the Home Region, or nowhere (the change would queue).",
              ),
            ),
          ),
        }),
      ),
      estimate: v.optional(
        v.pipe(
          v.union([answers.InvoiceEstimateAnswer, v.null()]),
          v.description(
            'null when there is nothing to estimate (no subscription yet, or the same Plan) or the processor could not estimate (`estimateUnavailable` says so)',
          ),
        ),
      ),
      estimateUnavailable: v.optional(v.nullable(v.string())),
      billingCycleDate: v.optional(v.nullable(Instant)),
      refusals: v.optional(
        v.pipe(
          v.array(
            v.object({
              code: v.picklist([
                'account_closing',
                'billing_overdue',
                'cancellation_scheduled',
                'subscription_not_active',
                'stack_not_running',
                'plan_unchanged',
                'operation_in_progress',
              ]),
              message: v.pipe(
                v.string(),
                v.description('What to do about it (the message the confirmation would answer)'),
              ),
              apiHint: v.optional(
                v.pipe(
                  v.string(),
                  v.description(
                    "For developers: the API call that fixes it, kept out of `message` (as in an error's `apiHint`)",
                  ),
                ),
              ),
            }),
          ),
          v.description(
            'Every refusal a confirmation would meet now, in the order the confirmation checks them (it answers the first); empty when it would be accepted',
          ),
        ),
      ),
      warnings: v.optional(
        v.pipe(
          v.array(v.string()),
          v.description(
            'What the tenant should know before confirming: more watched Projects than the new cap allows, and, when the Stack keeps the Founding Price Lock, that confirming ends it for good',
          ),
        ),
      ),
      priceLock: v.optional(
        v.pipe(
          v.union([answers.PriceLockAnswer, v.null()]),
          v.description(
            "The Stack's Founding Price Lock; while it holds, `current.monthlyPrice` is the locked price",
          ),
        ),
      ),
      estimatedAt: v.optional(Instant),
    }),
  ),
  PostPlanChange: jsonAnswer('202', answers.PlanChangeAnswer, { '409': answers.PlanChangeRefusalAnswer }),
  PostPlanChangeCancel: jsonAnswer('200', answers.PlanChangeAnswer, {
    '409': answers.PlanChangeRefusalAnswer,
  }),
  GetPlanChanges: {
    answers: { '200': { 'application/json': v.object({ planChanges: v.array(answers.PlanChangeAnswer) }) } },
  },
  GetPlanChange: jsonAnswer('200', answers.PlanChangeAnswer),
  GetPlanChangesExport: {
    answers: { '200': { 'application/x-ndjson': answers.PlanChangeExportLineAnswer } },
  },
  PostCredential: {
    answers: {
      '200': { 'application/json': answers.CredentialAnswer },
      '201': { 'application/json': answers.CredentialAnswer },
    },
    refusals: { '400': answers.CredentialRefusalAnswer },
  },
  GetCredentials: jsonAnswer('200', answers.CredentialListAnswer),
  GetCredentialCatalog: jsonAnswer('200', answers.CredentialCatalogAnswer),
  PostCredentialArchive: jsonAnswer('200', answers.CredentialAnswer),
  DeleteCredential: jsonAnswer(
    '200',
    v.object({
      name: v.string(),
      deleted: v.literal(true),
      nonResumableThreads: v.pipe(
        Integer,
        v.description('The Threads bound to it, which can no longer go on'),
      ),
    }),
    { '400': answers.CredentialRefusalAnswer, '409': answers.CredentialRefusalAnswer },
  ),
  PutProjectCredentialRoutes: jsonAnswer(
    '200',
    v.object({
      projectId: v.string(),
      stackId: v.string(),
      credentialRoutes: answers.CredentialRoutesAnswer,
    }),
  ),
  PutGuideCredential: {
    answers: { '200': { 'application/json': answers.GuideSelectionAnswer } },
    refusals: { '409': answers.CredentialRefusalAnswer },
  },
  PostStackExport: jsonAnswer('202', answers.ExportAnswer),
  GetStackExports: jsonAnswer('200', answers.ExportListAnswer),
  GetStackExport: jsonAnswer('200', answers.ExportAnswer),
  PostStackExportDownload: jsonAnswer(
    '200',
    v.object({
      exportId: v.string(),
      url: v.pipe(v.string(), v.url(), v.description('GET it (no session needed) before `expiresAt`')),
      expiresAt: Instant,
      sizeBytes: v.nullable(Integer),
      fileName: v.pipe(v.string(), v.description('A name to save it under: `<Stack name>-<exportId>.tar`')),
    }),
  ),
  GetDispatcherDesiredState: jsonAnswer(
    '200',
    v.object({
      version: Integer,
      stack: v.string(),
      plan: v.picklist(PLAN_VALUES),
      resources: PlanResources,
      run_cap: Integer,
      admission: v.pipe(
        v.picklist(['open', 'paused', 'closed']),
        v.description(
          '`open`: take new work; `paused`: take no new work and let active runs finish (a Plan Change runs on the Stack); `closed`: no work at all',
        ),
      ),
      lifecycle: v.picklist(STACK_LIFECYCLES),
      teardown_at: v.optional(describedInstant('Only while decommissioning: when the Stack is torn down')),
      operation: v.optional(
        v.pipe(
          v.object({
            id: v.pipe(v.string(), v.description("The Plan Change's id (pc_…)")),
            kind: v.picklist(['plan_change']),
            step: v.pipe(
              v.picklist(OPERATION_STEPS),
              v.description(
                '`drain`: start no new work, let active runs finish (report nothing beyond `appliedVersion` and `activeRuns`); `backup`: the final backup; `switch`: create the replacement at `target.location` with `target.resources` and `target.run_cap`, move the Durable Stack State and the Credentials; `verify`: the replacement shows it is healthy',
              ),
            ),
            target: v.object({
              plan: v.picklist(PLAN_VALUES),
              location: v.string(),
              resources: PlanResources,
              run_cap: Integer,
            }),
          }),
          v.description(
            'Only while a Plan Change runs on the Stack (then `admission` is `paused`): the step to carry out and the replacement. A later version with the same `id` and `step` is not a new step. See docs/dispatcher.md.',
          ),
        ),
      ),
      export: v.optional(
        v.pipe(
          v.object({
            id: v.pipe(v.string(), v.description("The export's id (exp_…)")),
            requestedAt: Instant,
          }),
          v.description(
            'Only while an export of the Stack runs: build the archive (docs/exports.md), upload it in parts (POST /v1/dispatcher/exports/{exportId}/parts) and report the outcome (POST /v1/dispatcher/exports/{exportId}/outcome). Each `id` once.',
          ),
        ),
      ),
      credentials: v.optional(
        v.pipe(
          v.array(
            v.object({
              name: v.string(),
              version: v.pipe(
                Integer,
                v.description("The material's version (it goes up at each provisioning)"),
              ),
            }),
          ),
          v.description(
            'Only when some: the Credentials waiting for validation (pending, not archived), by name. For each, read the material (GET /v1/dispatcher/credentials/{name}), check it with the provider, and report the verdict for that `version` (POST /v1/dispatcher/credentials/{name}/validation). The control plane never calls a provider with a secret.',
          ),
        ),
      ),
      poll_after_seconds: v.pipe(
        Integer,
        v.description(
          'When to poll next: 10 s while an operation runs, 720 to 1080 s (jittered per Stack) otherwise',
        ),
      ),
      heartbeat_seconds: v.pipe(
        Integer,
        v.description('Send the observed state when it changes, and at least this often'),
      ),
    }),
  ),
  PutDispatcherObservedState: jsonAnswer(
    '200',
    v.object({
      desiredStateVersion: v.optional(Integer),
      poll_after_seconds: v.optional(
        v.pipe(
          Integer,
          v.description(
            'When to poll next: 10 s while an operation runs, 720 to 1080 s (jittered per Stack) otherwise',
          ),
        ),
      ),
      heartbeat_seconds: v.optional(
        v.pipe(Integer, v.description('Send the observed state when it changes, and at least this often')),
      ),
    }),
  ),
  GetDispatcherCredential: jsonAnswer(
    '200',
    v.object({
      name: v.string(),
      provider: v.picklist(PROVIDERS),
      kind: v.picklist(CREDENTIAL_KINDS),
      version: v.pipe(Integer, v.description("The material's version: send it back with the verdict")),
      inject: answers.InjectionAnswer,
    }),
  ),
  PostDispatcherCredentialValidation: jsonAnswer(
    '200',
    v.object({
      name: v.string(),
      version: Integer,
      validation: v.object({
        state: v.picklist(['valid', 'invalid']),
        reasonCode: v.optional(
          v.pipe(v.picklist(['provider_refused']), v.description('With `invalid`: what the tenant is told')),
        ),
        dispatcherReason: v.optional(
          v.pipe(v.string(), v.description('With `invalid`: the `reason` sent, as recorded for operators')),
        ),
        checkedAt: Instant,
      }),
    }),
    { '409': answers.DispatcherCredentialRefusalAnswer },
  ),
  PostDispatcherThread: jsonAnswer('200', answers.ThreadBindingAnswer, {
    '409': answers.DispatcherCredentialRefusalAnswer,
  }),
  PostDispatcherGuideSession: jsonAnswer('200', answers.ThreadBindingAnswer, {
    '409': answers.DispatcherCredentialRefusalAnswer,
  }),
  PostDispatcherExportParts: jsonAnswer(
    '200',
    v.object({
      exportId: v.string(),
      parts: v.array(v.object({ partNumber: Integer, url: v.pipe(v.string(), v.url()) })),
      expiresAt: Instant,
    }),
  ),
  PostDispatcherExportOutcome: jsonAnswer('200', answers.ExportAnswer),
  PostDispatcherBlockingVerdict: jsonAnswer(
    '200',
    v.object({
      blocked: v.optional(v.boolean()),
      openBlockers: v.optional(v.array(v.record(v.string(), v.unknown()))),
    }),
  ),
  PostOpsRefund: {
    answers: {
      '200': {
        'application/json': v.object({
          tenantId: v.string(),
          slug: v.string(),
          requestedAt: Instant,
          grantedAt: Instant,
          refundedAmount: Integer,
          refunds: Integer,
          currency: v.string(),
          window: v.object({
            from: Instant,
            until: Instant,
          }),
          continued: v.pipe(
            v.boolean(),
            v.description('This request finished a grant an earlier one had started'),
          ),
        }),
      },
    },
    refusals: {
      '403': v.union([
        ErrorBodySchema,
        v.pipe(
          v.object({ message: v.string() }),
          v.description(
            "API Gateway's own answer to a request that is not IAM-signed (and the local run's, always).",
          ),
        ),
      ]),
    },
  },
  ProcessorWebhook: {
    answers: { '200': { 'application/json': v.object({ received: v.optional(v.boolean()) }) } },
  },
};
