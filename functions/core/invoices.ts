import { createHmac } from 'node:crypto';
import { type ChangeLine, changeLineItem, changeLineText } from './estimates.ts';
import { PLANS, type PlanValue } from './plans.ts';

/**
 * What a tenant reads of an invoice: one line per Stack and Plan for the period (the processor
 * bills a Plan's Stacks as one item with a quantity), prorations in our words, discount, tax,
 * credit used and what was refunded. Pure: the processor's facts in, the view out; the processor's
 * own line descriptions are never shown.
 */

/** One line of an invoice as the port reads it (minor units). */
export interface InvoiceLineFacts extends ChangeLine {
  proration: boolean;
}

/** A Stack as the invoice names it: its name and Plan (Stacks torn down are not billed). */
export interface BilledStack {
  name: string;
  plan: PlanValue;
}

export interface InvoiceLineView {
  description: string;
  /**
   * The same words without the days: `s2.acme on Standard`, `Credit for the unused time of 1
   * Standard Stack` (the console adds the days in the reader's own format).
   */
  item: string;
  /** A credit or charge for part of a period (a Stack added, a Plan changed), not a period's price. */
  proration: boolean;
  /** The days the line bills: a month for a period line, the rest of the period for a proration. */
  periodStart: string;
  periodEnd: string;
  /** The Stack the line is for (null: a proration, or more Stacks billed than are named). */
  stack: string | null;
  plan: PlanValue | null;
  /** Before the discount; negative: a credit. */
  amount: number;
  discount: number;
  tax: number;
}

/** `total` split into `parts` whole minor units, the remainder on the first ones. */
export const splitEvenly = (total: number, parts: number): number[] => {
  if (parts <= 0) return [];
  const base = Math.trunc(total / parts);
  let rest = total - base * parts;
  return Array.from({ length: parts }, () => {
    const step = Math.sign(rest);
    rest -= step;
    return base + step;
  });
};

/**
 * An invoice's lines as the tenant reads them: a Plan's period line becomes one line per Stack on
 * that Plan (by name, in name order; an unnamed line for each Stack billed beyond those named), the
 * amount, discount and tax split evenly; a proration stays one line, in our words.
 */
export const invoiceLines = (
  lines: readonly InvoiceLineFacts[],
  stacks: readonly BilledStack[],
): InvoiceLineView[] =>
  lines.flatMap((line): InvoiceLineView[] => {
    if (line.proration || !line.plan || line.quantity <= 1) {
      const plan = line.plan;
      const named = !line.proration && plan && line.quantity === 1 ? stackNames(stacks, plan)[0] : undefined;
      const item = line.proration ? changeLineItem(line) : periodLineText(plan, named ?? null, line.quantity);
      return [
        {
          description: line.proration ? changeLineText(line) : item,
          item,
          proration: line.proration,
          periodStart: line.periodStart,
          periodEnd: line.periodEnd,
          stack: named ?? null,
          plan,
          amount: line.amount,
          discount: line.discount,
          tax: line.tax,
        },
      ];
    }
    const plan = line.plan;
    const names = stackNames(stacks, plan);
    const [amounts, discounts, taxes] = [line.amount, line.discount, line.tax].map((total) =>
      splitEvenly(total, line.quantity),
    ) as [number[], number[], number[]];
    return amounts.map((amount, index) => {
      const item = periodLineText(plan, names[index] ?? null, 1);
      return {
        description: item,
        item,
        proration: false,
        periodStart: line.periodStart,
        periodEnd: line.periodEnd,
        stack: names[index] ?? null,
        plan,
        amount,
        discount: discounts[index] ?? 0,
        tax: taxes[index] ?? 0,
      };
    });
  });

const stackNames = (stacks: readonly BilledStack[], plan: PlanValue): string[] =>
  stacks
    .filter((stack) => stack.plan === plan)
    .map((stack) => stack.name)
    .sort();

/** "s2.acme on Standard", or "Standard (1 Stack)" when no Stack is named. */
const periodLineText = (plan: PlanValue | null, stack: string | null, quantity: number): string => {
  const planName = plan ? PLANS[plan].name : 'A price that is no Plan';
  if (stack) return `${stack} on ${planName}`;
  return `${planName} (${quantity} Stack${quantity === 1 ? '' : 's'})`;
};

/** An invoice's status in words. */
export const INVOICE_STATUS_WORDS = {
  draft: 'Not issued yet',
  open: 'Not paid yet',
  paid: 'Paid',
  void: 'Cancelled: nothing is owed',
  uncollectible: 'Not collected',
} as const;

export type InvoiceStatus = keyof typeof INVOICE_STATUS_WORDS;

/** Where the next page of invoices starts, as our own cursor: `<epoch seconds>.<shown in that second>`. */
export const invoiceCursor = {
  format: (start: { created: number; shown: number }): string => `${start.created}.${start.shown}`,
  parse: (cursor: string): { created: number; shown: number } | null => {
    const match = /^(\d{1,12})\.(\d{1,3})$/.exec(cursor);
    return match ? { created: Number(match[1]), shown: Number(match[2]) } : null;
  },
};

/**
 * Our reference for an issued invoice, never the processor's id: `<created epoch seconds>-<20 hex
 * digits>`, the digits an HMAC-SHA256 of the processor's invoice id keyed by the customer it
 * belongs to (the tenant's). One way: the id cannot be read back from it. A reference is mapped
 * back only by reading the caller's own customer's invoices of that second and comparing
 * (functions/ports/processor/account.ts), so it never reaches another tenant's invoice; the
 * second only narrows that read to one.
 */
export const invoiceRef = {
  of: (invoice: { customerId: string; invoiceId: string; created: number }): string =>
    `${invoice.created}-${createHmac('sha256', invoice.customerId).update(invoice.invoiceId).digest('hex').slice(0, 20)}`,
  /** The second a well-formed reference names, or null: a reference we never gave. */
  createdOf: (ref: string): number | null => {
    const match = /^(\d{1,12})-[0-9a-f]{20}$/.exec(ref);
    return match ? Number(match[1]) : null;
  },
};

/** The tenant's own addresses of an invoice's hosted page and PDF (functions/billing/invoices.ts). */
export type InvoiceDocument = 'view' | 'pdf';

export const INVOICE_DOCUMENTS: readonly InvoiceDocument[] = ['view', 'pdf'];

export const invoiceDocumentPath = (
  ref: string,
  document: InvoiceDocument,
  /** The slug of a former account the invoice belongs to (`?account=`), or none for the current one. */
  account?: string,
): string =>
  `/v1/billing/invoices/${encodeURIComponent(ref)}/${document}${account ? `?account=${encodeURIComponent(account)}` : ''}`;
