import { moneyBackGrantedEmail } from '#core/emails.ts';
import {
  type MoneyBackRefusal,
  type MoneyBackRefusalFacts,
  moneyBackCharges,
  moneyBackRefusal,
  sameEmail,
} from '#core/money-back.ts';
import type { Refusal } from '#core/refusal.ts';
import { refuse } from '#core/refusals/index.ts';
import { crashPoint } from '#ports/crash-point.ts';
import { customerEmail } from '#ports/processor/customers.ts';
import { viaProcessor as viaTheProcessor } from '#ports/processor/errors.ts';
import { invoicePayments, type Payment, settledInvoices } from '#ports/processor/payments.ts';
import { getBilling } from '#store/billing.ts';
import { outboxPut } from '#store/outbox.ts';
import {
  claimMoneyBack,
  completeMoneyBack,
  getTenant,
  lookNoLaterThan,
  type MoneyBackRecord,
  type Tenant,
} from '#store/tenants.ts';
import { administratorEmails } from '#store/users.ts';
import { requireTenantBySlug } from '../lookups/index.ts';
import { refundSubscription } from './refund.ts';

/** A granted money-back refund, as the operator sees it (no processor ids). */
export interface MoneyBackGrant {
  tenantId: string;
  slug: string;
  requestedAt: string;
  grantedAt: string;
  /** Minor units refunded by the whole grant (a continued grant counts its first run's too). */
  refundedAmount: number;
  refunds: number;
  currency: string;
  window: { from: string; until: string };
  /** True when this run finished a grant that an earlier run had started. */
  continued: boolean;
}

/** One email per tenant, ever: the outbox key of the confirmation. */
export const moneyBackEmailKey = (tenantId: string): string => `money-back:${tenantId}`;

const refused = (code: MoneyBackRefusal, facts: MoneyBackRefusalFacts): Refusal => {
  return refuse(code, facts, {
    extra: {
      ...(facts.windowUntil !== undefined ? { windowEndsAt: facts.windowUntil } : {}),
      ...(facts.grantedAt ? { grantedAt: facts.grantedAt } : {}),
      ...(facts.graceEndsAt ? { graceEndsAt: facts.graceEndsAt } : {}),
    },
  });
};

const paymentNotSeenYet = () => refuse('payment_not_seen_yet');

/** Processor failures during a grant: the claim stays, and running the same request again continues it. */
const viaProcessor = <T>(operation: () => Promise<T>): Promise<T> =>
  viaTheProcessor(
    operation,
    'Run the same request again: a grant under way is continued, and no payment is refunded twice.',
  );

/** Does `email` belong to the account: an administrator's address, else the processor customer's? */
const emailOfAccount = async (tenant: Tenant, customerId: string | undefined, email: string) => {
  if ((await administratorEmails(tenant.tenantId)).some((known) => sameEmail(known, email))) return true;
  if (!customerId) return false;
  return sameEmail(await viaProcessor(() => customerEmail(customerId)), email);
};

/** What the earlier run of a grant under way refunded of the window's charges (counted in the grant's totals). */
const refundedBefore = (payments: Payment[]) => {
  const refunded = payments.filter((p) => p.amount - p.refundable > 0);
  return {
    amount: refunded.reduce((sum, p) => sum + (p.amount - p.refundable), 0),
    refunds: refunded.length,
  };
};

const grantOf = (
  tenant: Tenant,
  record: MoneyBackRecord,
  window: { from: string; until: string },
  continued: boolean,
): MoneyBackGrant => ({
  tenantId: tenant.tenantId,
  slug: tenant.slug ?? '',
  requestedAt: record.requestedAt,
  grantedAt: record.grantedAt ?? '',
  refundedAmount: record.refundedAmount ?? 0,
  refunds: record.refunds ?? 0,
  currency: record.currency ?? 'usd',
  window,
  continued,
});

/**
 * THE money-back use case, an operator action after the tenant's email to support (the ops CLI
 * and the IAM-authorized POST /ops/refunds). It checks the request (core/money-back.ts: the
 * address, once per person (an earlier account's grant counts), the window judged at `requestedAt`, not while leaving), claims the
 * grant on the tenant item once, refunds the payments of every invoice settled in the window (the
 * one that opens it, by identity, and every other paid within it by its own stamp) and cancels the
 * subscription at once through the one refund use case (keyed per payment: a rerun after a crash
 * continues the same grant and refunds nothing twice), then records the grant and queues the
 * confirmation email in one transaction. The sweep then moves the tenant to `decommissioning`
 * (reason `refund_granted`) with all its Stacks; it is made due at once.
 */
export const grantMoneyBack = async (params: {
  slug: string;
  email: string;
  /** When support received the email (default: now). */
  requestedAt?: Date;
  now: Date;
}): Promise<MoneyBackGrant> => {
  const { now } = params;
  const email = params.email.trim();
  const requestedAt = params.requestedAt ?? now;
  const tenant = await requireTenantBySlug(params.slug);
  const billing = await getBilling(tenant.tenantId);
  const customerId = billing?.customerId;
  const underway = tenant.moneyBack !== undefined && tenant.moneyBack.grantedAt === undefined;
  // A grant under way keeps the time its first run was given.
  const judgedAt = underway && tenant.moneyBack ? new Date(tenant.moneyBack.requestedAt) : requestedAt;
  const emailMatches = await emailOfAccount(tenant, customerId, email);
  // The invoices settled above zero: the first opens the window, and the window's charges are
  // these invoices themselves, matched by identity.
  const settled =
    emailMatches && customerId
      ? moneyBackCharges(
          (await viaProcessor(() => settledInvoices(customerId))).map((invoice) => ({
            ...invoice,
            id: invoice.invoiceId,
          })),
        )
      : null;
  const firstPaidAt = settled?.opening.paidAt ?? null;
  const window = settled?.window ?? null;
  // Once per person: a returning customer's new account carries its earlier account's grant.
  const earlier = tenant.returning?.moneyBack;
  const code = moneyBackRefusal({
    billingState: tenant.billingState,
    alreadyGranted: tenant.moneyBack?.grantedAt !== undefined,
    grantedToEarlierAccount: earlier !== undefined,
    grantUnderway: underway,
    firstPaidAt,
    // A future time is refused as given; the window is judged at the grant's own time.
    requestedAt: requestedAt.getTime() > now.getTime() ? requestedAt : judgedAt,
    now,
    emailMatches,
  });
  const facts: MoneyBackRefusalFacts = {
    windowUntil: window?.until ?? null,
    requestedAt: (requestedAt.getTime() > now.getTime() ? requestedAt : judgedAt).toISOString(),
    grantedAt: tenant.moneyBack?.grantedAt ?? earlier?.grantedAt ?? null,
    earlierSlug: earlier?.slug ?? null,
    graceEndsAt: tenant.graceDeadline ?? null,
  };
  if (code) throw refused(code, facts);
  const subscriptionId = billing?.subscriptionId;
  if (!settled || !window || !subscriptionId) throw paymentNotSeenYet();

  const claim = await claimMoneyBack(tenant.tenantId, {
    requestedAt: judgedAt.toISOString(),
    startedAt: now.toISOString(),
    email,
  });
  if (!claim) {
    // Granted, leaving or no longer active in between: say which, as the checks would have.
    const current = await getTenant(tenant.tenantId);
    const grantedAt = current?.moneyBack?.grantedAt ?? null;
    if (grantedAt) throw refused('already_used', { ...facts, grantedAt });
    if (current?.billingState === 'past-due' || current?.billingState === 'suspended')
      throw refused(current.billingState === 'past-due' ? 'account_past_due' : 'account_suspended', {
        ...facts,
        graceEndsAt: current.graceDeadline ?? null,
      });
    if (current?.billingState === 'provisioning') throw paymentNotSeenYet();
    throw refused('decommissioning', facts);
  }
  const { continued } = claim;
  // The payments of exactly the window's invoices (the first payment, added Stacks' prorations,
  // Plan Change charges invoiced in it), read now: what an earlier run refunded shows as such.
  const payments: Payment[] = [];
  for (const charge of settled.charges)
    payments.push(...(await viaProcessor(() => invoicePayments(charge.invoiceId))));
  const before = continued ? refundedBefore(payments) : { amount: 0, refunds: 0 };
  const outcome = await viaProcessor(() => refundSubscription(subscriptionId, 'refund_granted', payments));
  crashPoint('refund.refunded');
  const completion = {
    grantedAt: now.toISOString(),
    refundedAmount: before.amount + outcome.refundedAmount,
    refunds: before.refunds + outcome.refunds,
    currency: payments[0]?.currency ?? settled.opening.currency,
  };
  const slug = tenant.slug ?? params.slug;
  const completed = await completeMoneyBack(
    tenant.tenantId,
    completion,
    outboxPut(
      moneyBackEmailKey(tenant.tenantId),
      claim.record.email ?? email,
      moneyBackGrantedEmail({ slug, ...completion }),
      now,
    ),
  );
  // The sweep moves the tenant to decommissioning at its next look: make that now.
  await lookNoLaterThan(tenant.tenantId, now.toISOString());
  if (!completed) {
    // Another run completed the same grant first: answer what it recorded.
    const stored = (await getTenant(tenant.tenantId))?.moneyBack;
    if (stored?.grantedAt) return grantOf(tenant, stored, window, true);
    throw new Error(`the money-back grant of tenant ${tenant.tenantId} could not be recorded`);
  }
  return grantOf(tenant, { ...claim.record, ...completion }, window, continued);
};
