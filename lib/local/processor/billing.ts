/**
 * The emulator's billing engine: invoice and proration arithmetic, PURE (numbers and plain
 * records in, amounts and lines out; no state, no clock, no I/O). The resources (invoices.ts,
 * subscriptions.ts, checkout.ts) read the state, call these, and store what they answer.
 * Amounts are in minor units (cents); rounding is half away from zero, so a credit is exactly the
 * negative of the matching charge.
 */

/** Tax rates in percent by the customer's ISO country code; `default` for every other country. */
export type TaxRates = Readonly<Record<string, number>>;

/**
 * The emulator's Stripe Tax stand-in: a few EU VAT standard rates, 0% elsewhere (the emulated
 * account is a US account selling in usd, which collects nowhere else). docs/decisions.md.
 */
export const DEFAULT_TAX_RATES: TaxRates = { DE: 19, FR: 20, NL: 21, default: 0 };

/** The rate (percent) for a customer in `country`; the default rate when the country is unknown. */
export const taxRateFor = (rates: TaxRates, country: string | null | undefined): number =>
  (country ? rates[country.toUpperCase()] : undefined) ?? rates.default ?? 0;

const round = (value: number): number => Math.sign(value) * Math.round(Math.abs(value));

/** What a coupon takes off: a percentage, or a fixed amount per invoice. */
export interface CouponTerms {
  percentOff: number | null;
  amountOff: number | null;
}

/** A subscription item as priced: its id, price, unit amount and quantity. */
export interface ItemTerms {
  item: string;
  price: string;
  unitAmount: number;
  quantity: number;
}

/** The unused or remaining share of a period from `at` to `periodEnd`, charged in full units. */
export const prorate = (terms: {
  unitAmount: number;
  quantity: number;
  periodStart: number;
  periodEnd: number;
  at: number;
}): number => {
  const period = terms.periodEnd - terms.periodStart;
  if (period <= 0) return 0;
  const remaining = Math.min(period, Math.max(0, terms.periodEnd - terms.at));
  return round((terms.unitAmount * terms.quantity * remaining) / period);
};

export interface ProrationLine {
  /** `credit` for unused time on what the item was (negative), `charge` for what it is now. */
  kind: 'credit' | 'charge';
  item: string;
  price: string;
  unitAmount: number;
  quantity: number;
  amount: number;
  periodStart: number;
  periodEnd: number;
}

/**
 * The proration lines of changing a subscription's items from `before` to `after` at `at`
 * (within the period): an item removed is credited; an item added is charged; an item whose price
 * or quantity changed is credited in full (old price x old quantity) and charged in full (new
 * price x new quantity), as Stripe does. Unchanged items give nothing. Credits come first.
 */
export const prorationLines = (
  before: readonly ItemTerms[],
  after: readonly ItemTerms[],
  period: { start: number; end: number },
  at: number,
): ProrationLine[] => {
  const line = (kind: ProrationLine['kind'], terms: ItemTerms): ProrationLine => {
    const amount = prorate({
      unitAmount: terms.unitAmount,
      quantity: terms.quantity,
      periodStart: period.start,
      periodEnd: period.end,
      at,
    });
    return {
      kind,
      item: terms.item,
      price: terms.price,
      unitAmount: terms.unitAmount,
      quantity: terms.quantity,
      amount: kind === 'credit' ? -amount : amount,
      periodStart: at,
      periodEnd: period.end,
    };
  };
  const changed = (a: ItemTerms, b: ItemTerms) =>
    a.price !== b.price || a.quantity !== b.quantity || a.unitAmount !== b.unitAmount;
  const credits: ProrationLine[] = [];
  const charges: ProrationLine[] = [];
  for (const old of before) {
    const now = after.find((terms) => terms.item === old.item);
    if (!now || changed(old, now)) credits.push(line('credit', old));
  }
  for (const now of after) {
    const old = before.find((terms) => terms.item === now.item);
    if (!old || changed(old, now)) charges.push(line('charge', now));
  }
  return [...credits, ...charges].filter((l) => l.amount !== 0);
};

/**
 * What a coupon takes off each line. A percentage comes off every line (a credit line's discount
 * is negative: the credit is for what was paid after the discount). A fixed amount comes off
 * once per invoice, at most the subtotal, shared among the positive lines in proportion (the
 * last one takes the rounding); nothing when the subtotal is not positive.
 */
export const lineDiscounts = (amounts: readonly number[], coupon: CouponTerms | null): number[] => {
  if (!coupon) return amounts.map(() => 0);
  if (coupon.percentOff !== null) {
    const percent = coupon.percentOff;
    return amounts.map((amount) => round((amount * percent) / 100));
  }
  const subtotal = amounts.reduce((sum, amount) => sum + amount, 0);
  const total = Math.min(Math.max(0, subtotal), coupon.amountOff ?? 0);
  const positive = amounts.reduce((sum, amount) => sum + Math.max(0, amount), 0);
  if (total <= 0 || positive <= 0) return amounts.map(() => 0);
  const lastPositive = amounts.reduce((last, amount, index) => (amount > 0 ? index : last), -1);
  let given = 0;
  return amounts.map((amount, index) => {
    if (amount <= 0) return 0;
    const share = index === lastPositive ? total - given : Math.floor((total * amount) / positive);
    given += share;
    return share;
  });
};

/**
 * `lineDiscounts` for lines under different coupons: each coupon over the lines it covers (a fixed
 * amount comes off once among them), nothing on lines under none.
 */
const discountsByCoupon = (
  amounts: readonly number[],
  coupon: CouponTerms | null,
  lineCoupons: readonly (CouponTerms | null | undefined)[] | undefined,
  fixedDiscounts: readonly (number | undefined)[] | undefined,
): number[] => {
  if (!lineCoupons && !fixedDiscounts) return lineDiscounts(amounts, coupon);
  const couponOf = (index: number) => {
    const own = lineCoupons?.[index];
    return own === undefined ? coupon : own;
  };
  const discounts = amounts.map((_, index) => fixedDiscounts?.[index] ?? 0);
  const groups = new Map<CouponTerms, number[]>();
  amounts.forEach((_, index) => {
    // A line whose discount was fixed when it was made keeps it: no coupon is applied to it again.
    if (fixedDiscounts?.[index] !== undefined) return;
    const terms = couponOf(index);
    if (terms) groups.set(terms, [...(groups.get(terms) ?? []), index]);
  });
  for (const [terms, indexes] of groups) {
    const shares = lineDiscounts(
      indexes.map((index) => amounts[index] ?? 0),
      terms,
    );
    indexes.forEach((index, position) => {
      discounts[index] = shares[position] ?? 0;
    });
  }
  return discounts;
};

/**
 * The discount of each proration line of one change, worked out when the change is made (as the
 * processor does with itemized proration discounts): the coupon of the period the change is made
 * in over the change's own lines, a percentage per line, a fixed amount once among them. The line
 * keeps it whichever invoice takes it, so an estimate, the pending item and the invoice agree.
 */
export const prorationDiscounts = (amounts: readonly number[], coupon: CouponTerms | null): number[] =>
  lineDiscounts(amounts, coupon);

export interface InvoiceTotals {
  /** Per line: the discount, the taxable amount (amount - discount) and the tax on it. */
  lineDiscounts: number[];
  lineTaxable: number[];
  lineTaxes: number[];
  subtotal: number;
  discount: number;
  tax: number;
  /** subtotal - discount + tax; negative when the invoice is a net credit. */
  total: number;
  /** The customer's balance before this invoice (negative = credit the customer has). */
  startingBalance: number;
  /** What is charged: the total after the balance, never below 0. */
  amountDue: number;
  /** The customer's balance after it: what of a credit is left (negative), else 0. */
  endingBalance: number;
}

/**
 * The totals of an invoice with lines of `amounts`: the coupon's discount per line, tax at
 * `taxRatePercent` on each line after its discount (exclusive tax, rounded per line, as Stripe
 * Tax does), and the customer balance applied first: a credit balance pays what it can, and a
 * net credit (negative total) is added to the balance instead of being paid out.
 */
export const invoiceTotals = (input: {
  amounts: readonly number[];
  coupon: CouponTerms | null;
  /**
   * Per line, the coupon that line is under when it is not the invoice's (`undefined`: the
   * invoice's): a proration keeps the discount of the period it was made in.
   */
  lineCoupons?: readonly (CouponTerms | null | undefined)[];
  /**
   * Per line, the discount it already carries (`undefined`: none fixed, the coupon applies): a
   * proration's discount is worked out when the proration is made (`prorationDiscounts`) and the
   * invoice that takes it keeps that amount.
   */
  fixedDiscounts?: readonly (number | undefined)[];
  taxRatePercent: number;
  startingBalance: number;
}): InvoiceTotals => {
  const discounts = discountsByCoupon(input.amounts, input.coupon, input.lineCoupons, input.fixedDiscounts);
  const taxable = input.amounts.map((amount, index) => amount - (discounts[index] ?? 0));
  const taxes = taxable.map((amount) => round((amount * input.taxRatePercent) / 100));
  const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);
  const subtotal = sum(input.amounts);
  const discount = sum(discounts);
  const tax = sum(taxes);
  const total = subtotal - discount + tax;
  const net = total + input.startingBalance;
  return {
    lineDiscounts: discounts,
    lineTaxable: taxable,
    lineTaxes: taxes,
    subtotal,
    discount,
    tax,
    total,
    startingBalance: input.startingBalance,
    amountDue: Math.max(0, net),
    endingBalance: net < 0 ? net : 0,
  };
};
