import { PLANS, type PlanValue } from './plans.ts';

/**
 * What a tenant reads of an estimate of the next invoice (a Plan Change's, an added Stack's): the
 * invoice as a whole, and the change's own share of it after the current discount with its tax
 * estimate, line by line in our words. Pure: the processor's facts in, the view out; the
 * processor's own line descriptions are never shown.
 */

/** One proration line of a change, as the processor priced it (minor units). */
export interface ChangeLine {
  /** The Plan of the price the line is for (null: a price that is no Plan's). */
  plan: PlanValue | null;
  /** Stacks on that price the line is for. */
  quantity: number;
  /** Before the discount; negative: a credit. */
  amount: number;
  discount: number;
  tax: number;
  periodStart: string;
  periodEnd: string;
}

/**
 * The processor's estimate of the next invoice with a change applied, as the port reads it
 * (functions/ports/processor/preview.ts), lines keyed by price; minor units.
 */
/**
 * The next invoice as a whole, with a change applied (what else is on it included: the renewal,
 * pending prorations), in minor units.
 */
export interface InvoiceWhole {
  currency: string;
  subtotal: number;
  discount: number;
  tax: number;
  total: number;
  /** What the card would be charged: the total less any customer credit. */
  amountDue: number;
}

export interface EstimateFacts extends InvoiceWhole {
  /**
   * The change's share: ITS proration lines (negative: a credit), those whose period starts at the
   * proration date and that are not already pending, after the current discount and before tax,
   * the basis the final adjustment is read on. Prorations already pending on that invoice (an
   * added Stack's, an earlier change's) are in the total, never here.
   */
  adjustment: number;
  /** The tax estimate on the change's lines: the next invoice's total changes by adjustment + this. */
  adjustmentTax: number;
  /** When that invoice is made (the preserved billing-cycle date). */
  invoiceAt: string | null;
  /** The change's own proration lines (credits first, as the processor lists them). */
  changeLines: (Omit<ChangeLine, 'plan'> & { priceId: string })[];
}

/** A change's line as a tenant reads it. */
export interface EstimateLine {
  description: string;
  /** Before the discount; negative: a credit. */
  amount: number;
  discount: number;
  tax: number;
}

export interface EstimateView extends InvoiceWhole {
  /** The change's own share, after the current discount, before tax. */
  adjustment: number;
  /** The tax estimate on it. */
  adjustmentTax: number;
  /** What the next invoice's total changes by: adjustment + adjustmentTax. */
  adjustmentTotal: number;
  invoiceAt: string | null;
  lines: EstimateLine[];
}

const day = (iso: string): string => iso.slice(0, 10);

/**
 * A proration line in our words: a credit for the unused rest of the period on what the Stacks were
 * billed at (a negative amount), or a charge for the rest of the period on what they are billed at
 * now (the processor credits an item's whole old quantity and charges its whole new one).
 */
export const changeLineText = (line: ChangeLine): string =>
  `${changeLineItem(line)}, from ${day(line.periodStart)} to ${day(line.periodEnd)}`;

/** The same words without the days (a reader writes the days in its own format). */
export const changeLineItem = (line: ChangeLine): string => {
  const plan = line.plan ? `${PLANS[line.plan].name} ` : '';
  const stacks = `${line.quantity} ${plan}Stack${line.quantity === 1 ? '' : 's'}`;
  return line.amount < 0 ? `Credit for the unused time of ${stacks}` : `Charge for ${stacks}`;
};

/** The estimate as a tenant reads it: `planOfPrice` names the Plan of each line's price. */
export const estimateView = (
  facts: EstimateFacts,
  planOfPrice: (priceId: string) => PlanValue | null,
): EstimateView => ({
  currency: facts.currency,
  subtotal: facts.subtotal,
  discount: facts.discount,
  tax: facts.tax,
  total: facts.total,
  amountDue: facts.amountDue,
  adjustment: facts.adjustment,
  adjustmentTax: facts.adjustmentTax,
  adjustmentTotal: facts.adjustment + facts.adjustmentTax,
  invoiceAt: facts.invoiceAt,
  lines: facts.changeLines.map(({ priceId, ...line }) => ({
    description: changeLineText({ ...line, plan: planOfPrice(priceId) }),
    amount: line.amount,
    discount: line.discount,
    tax: line.tax,
  })),
});
