import { escapeHtml } from './html.ts';
import { PLANS, type PlanValue } from './plans.ts';
import { PLAN_CHANGE_REASON_TEXT, type PlanChangeReason } from './tenant-reasons.ts';

/** An email as the outbox keeps it: plain, readable text and a simple HTML version. */
export interface EmailContent {
  subject: string;
  text: string;
  html: string;
}

const htmlOf = (paragraphs: string[]) =>
  `<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5;max-width:36rem">${paragraphs
    .map((p) => `<p>${escapeHtml(p)}</p>`)
    .join('')}</body></html>`;

/** The waitlist email: sent once, only when the waitlisted Plan can be placed (spec §6). */
export const waitlistCapacityEmail = (params: {
  plan: PlanValue;
  homeRegion: string;
  appUrl: string;
  /** Today's list price (minor units), which a price rise may have changed from the catalog's. */
  monthlyPrice?: number;
}): EmailContent => {
  const plan = PLANS[params.plan];
  const monthly = params.monthlyPrice ?? plan.monthlyPrice.amount;
  const paragraphs = [
    `Good news: the ${plan.name} Plan can now be placed in your Home Region (${params.homeRegion}).`,
    `You asked to hear when it could. Places are not held for the waitlist, so check out soon if you still want it: ${params.appUrl}`,
    `${plan.name}: US$${monthly / 100} per month, ${plan.resources.vcpu} shared vCPU, ${plan.resources.memoryGb} GB memory, ${plan.resources.storageGb} GB storage.`,
    'You are receiving this email once because you joined the waitlist for this Plan.',
  ];
  return {
    subject: `The ${plan.name} Plan is available`,
    text: `${paragraphs.join('\n\n')}\n`,
    html: htmlOf(paragraphs),
  };
};

const money = (amount: number, currency: string) =>
  `${amount < 0 ? '-' : ''}${currency.toUpperCase() === 'USD' ? 'US$' : `${currency.toUpperCase()} `}${(Math.abs(amount) / 100).toFixed(2)}`;

/**
 * An amount after any discount, with its tax and their sum when known ("US$4.17 (after any
 * discount) plus US$0.79 tax, US$4.96 in all"); else said to be before tax.
 */
const withTax = (amount: number, currency: string, tax?: number | null, total?: number | null) =>
  tax === undefined || tax === null || total === undefined || total === null
    ? `${money(amount, currency)} (after any discount, before tax)`
    : `${money(amount, currency)} (after any discount) plus ${money(tax, currency)} tax, ${money(total, currency)} in all`;

/** The completion email's money: the final figures, the estimate's beside them, and why they differ. */
const adjustmentParagraphs = (a: CompletedAdjustment): string[] => {
  const credit = (a.total ?? a.amount) < 0;
  const sign = credit ? -1 : 1;
  const figures = withTax(
    sign * a.amount,
    a.currency,
    a.tax === undefined || a.tax === null ? a.tax : sign * a.tax,
    a.total === undefined || a.total === null ? a.total : sign * a.total,
  );
  const paragraphs = [
    credit
      ? `${figures} for the rest of this billing period was credited to your account balance; it lowers your next invoice and is never paid out in cash.`
      : `Your next regular invoice carries ${figures} for the rest of this billing period on the new Plan.`,
  ];
  if (a.estimate)
    paragraphs.push(
      `The estimate shown when you confirmed was ${withTax(a.estimate.amount, a.currency, a.estimate.tax, a.estimate.total)}. ${a.explanation ?? ''}`.trim(),
    );
  return paragraphs;
};

/**
 * A completed change's money: the exact adjustment on the next invoice after any discount and
 * before tax, its tax and their sum (minor units; negative: a credit; tax and total absent or null
 * when not known), the estimate's figures shown at confirmation, and why they differ.
 */
interface CompletedAdjustment {
  amount: number;
  tax?: number | null;
  total?: number | null;
  currency: string;
  estimate?: { amount: number; tax: number | null; total: number | null } | null;
  explanation?: string;
}

/** The one email of a Plan Change that ended completed, rolled back or expired (spec §6). */
export const planChangeOutcomeEmail = (params: {
  outcome: 'completed' | 'rolled_back' | 'expired';
  stackName: string;
  fromPlan: PlanValue;
  toPlan: PlanValue;
  /** Completed: the replacement is in another location and its IP address changed. */
  movedTo?: string | undefined;
  addressChanged?: boolean | undefined;
  /** Completed: the final figures beside the estimate's. */
  adjustment?: CompletedAdjustment | undefined;
  /** Completed: nothing was billed, because the account was closed before the billing commit. */
  notBilled?: boolean | undefined;
  /** Rolled back: why, as a code of ours (never a Dispatcher's words). */
  reasonCode?: PlanChangeReason | undefined;
  appUrl: string;
}): EmailContent => {
  const from = PLANS[params.fromPlan].name;
  const to = PLANS[params.toPlan].name;
  const paragraphs: string[] = [];
  let subject: string;
  if (params.outcome === 'completed') {
    subject = `${params.stackName} now runs on the ${to} Plan`;
    paragraphs.push(`Your Stack ${params.stackName} moved from the ${from} Plan to the ${to} Plan.`);
    if (params.movedTo)
      paragraphs.push(
        `It now runs in another location (${params.movedTo})${params.addressChanged === false ? '' : ', and its IP address changed: update any allow-list that names the old one'}.`,
      );
    if (params.notBilled)
      paragraphs.push(
        'Nothing was billed for this change: the account was closed before the change was committed.',
      );
    else if (params.adjustment) paragraphs.push(...adjustmentParagraphs(params.adjustment));
  } else if (params.outcome === 'rolled_back') {
    subject = `The Plan Change of ${params.stackName} was rolled back`;
    const reason = PLAN_CHANGE_REASON_TEXT[params.reasonCode ?? 'move_failed'];
    paragraphs.push(
      `The change of ${params.stackName} from the ${from} Plan to the ${to} Plan could not be completed. ${reason.what}`,
      `${reason.billing} ${reason.next}`,
    );
  } else {
    subject = `The Plan Change of ${params.stackName} expired`;
    paragraphs.push(
      `No place for the ${to} Plan became free within 7 days, so the change of ${params.stackName} expired.`,
      `The Stack stays on the ${from} Plan and your billing is unchanged. You may ask for the change again at any time.`,
    );
  }
  paragraphs.push(`See the change and its history: ${params.appUrl}`);
  return { subject, text: `${paragraphs.join('\n\n')}\n`, html: htmlOf(paragraphs) };
};

/**
 * The confirmation of a granted money-back refund (sent once per tenant): what was refunded, that
 * the subscription has ended, and that the Stacks are torn down after the export window.
 */
export const moneyBackGrantedEmail = (params: {
  slug: string;
  refundedAmount: number;
  currency: string;
  refunds: number;
}): EmailContent => {
  const payments = params.refunds === 1 ? '1 payment' : `${params.refunds} payments`;
  const paragraphs = [
    `Your money-back refund for ${params.slug} is granted.`,
    params.refunds > 0
      ? `We refunded ${money(params.refundedAmount, params.currency)} (${payments} made in the 14-day window) to the card that paid; your bank shows it within a few business days.`
      : 'Every payment made in the 14-day window had already been refunded.',
    'Your subscription has ended at once: nothing more will be billed.',
    'Your Stacks stop taking new work now and are torn down at the end of the export window. Export your data before then; the billing status in the app shows the date.',
    'The money-back refund can be used once per person: a new account you start later has none.',
    'Once your Stacks are torn down, you can start a new account with the same sign-in: a new slug, at the prices then offered.',
  ];
  return {
    subject: `Your money-back refund for ${params.slug} is granted`,
    text: `${paragraphs.join('\n\n')}\n`,
    html: htmlOf(paragraphs),
  };
};

/**
 * The account is closed for good (sent once, when the sweep has torn everything down): nothing
 * more is billed, the invoices stay readable, and the same sign-in can start a new account now.
 */
export const accountClosedEmail = (params: { slug: string | null; appUrl: string }): EmailContent => {
  const name = params.slug ? `account ${params.slug}` : 'account';
  const paragraphs = [
    `Your ${name} is closed: its Stacks are torn down and nothing more will be billed.`,
    'Your invoices and billing history stay readable in the app.',
    `You can start a new account at any time with the same sign-in: choose a new slug (${params.slug ? `"${params.slug}" stays with the closed account` : 'the old one stays with the closed account'}) and check out at the prices then offered. ${params.appUrl}`,
  ];
  return {
    subject: `Your ${name} is closed`,
    text: `${paragraphs.join('\n\n')}\n`,
    html: htmlOf(paragraphs),
  };
};
