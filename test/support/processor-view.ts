import type { ProcessorEmulator } from '../../lib/local/processor/emulator.ts';
import type { ProcessorFault } from '../../lib/local/processor/http.ts';

/**
 * What the processor emulator holds and was asked, per tenant, read straight from its state and
 * its record of calls: `const { subscriptionOf, itemsByPlan } = processorView(emulator)`.
 */
export const processorView = (emulator: ProcessorEmulator) => {
  /** Every subscription whose metadata names the tenant, whatever its status. */
  const subscriptionsOf = (tenantId: string) =>
    Object.values(emulator.state.subscriptions).filter((s) => s.metadata.tenantId === tenantId);
  /** The tenant's subscription (the first whose metadata names it). */
  const subscriptionOf = (tenantId: string) => {
    const [found] = subscriptionsOf(tenantId);
    if (!found) throw new Error(`no subscription for ${tenantId}`);
    return found;
  };
  /**
   * The invoices of the tenant's subscription, oldest first (only those of one billing reason,
   * when given). `customerInvoicesOf` reads wider: every invoice of a processor customer, whatever
   * subscription (or none) it bills.
   */
  const invoicesOf = (tenantId: string, reason?: string) =>
    Object.values(emulator.state.invoices)
      .filter(
        (invoice) =>
          invoice.subscription === subscriptionOf(tenantId).id &&
          (reason === undefined || invoice.billingReason === reason),
      )
      .sort((a, b) => a.created - b.created);
  /** Every invoice of a processor customer, oldest first: a customer that left must see none added. */
  const customerInvoicesOf = (customer: string) =>
    Object.values(emulator.state.invoices)
      .filter((invoice) => invoice.customer === customer)
      .sort((a, b) => a.created - b.created);
  /** The customer's payments that succeeded (the money taken), oldest first. */
  const chargesOf = (customer: string) =>
    Object.values(emulator.state.paymentIntents)
      .filter((p) => p.customer === customer && p.status === 'succeeded')
      .sort((a, b) => a.created - b.created);
  /** The Plan a price bills (from its lookup key), undefined for a price that is no Plan's. */
  const planOfPrice = (priceId: string) =>
    /^stack_plan_(\w+)_monthly$/.exec(emulator.state.prices[priceId]?.lookupKey ?? '')?.[1];
  /** The subscription's items as `{ plan: quantity }`. */
  const itemsByPlan = (tenantId: string) =>
    Object.fromEntries(
      subscriptionOf(tenantId).items.map((item) => [planOfPrice(item.price), item.quantity]),
    );
  /** The active price of a Plan. */
  const priceOf = (plan: string) => {
    const found = Object.values(emulator.state.prices).find(
      (price) => price.lookupKey === `stack_plan_${plan}_monthly` && price.active,
    );
    if (!found) throw new Error(`no ${plan} price`);
    return found;
  };
  /** Every update (a POST) the control plane sent for the tenant's subscription. */
  const updatesOf = (tenantId: string) =>
    emulator.calls.filter(
      (c) => c.method === 'POST' && c.path === `/v1/subscriptions/${subscriptionOf(tenantId).id}`,
    );
  /** Every item change (an update with `items`) the control plane sent for the tenant's subscription. */
  const itemChanges = (tenantId: string) => updatesOf(tenantId).filter((c) => c.params.items);
  /** The distinct keys the tenant's item changes went with, in order. */
  const keysSent = (tenantId: string) => [...new Set(itemChanges(tenantId).map((c) => c.idempotencyKey))];
  /** The processor customers made for the tenant (their metadata names it). */
  const customersOf = (tenantId: string) =>
    Object.values(emulator.state.customers).filter((c) => c.metadata.tenantId === tenantId);
  /** The tenant's Checkout Sessions (their client reference is the tenant). */
  const checkoutSessionsOf = (tenantId: string) =>
    Object.values(emulator.state.checkoutSessions).filter((s) => s.clientReferenceId === tenantId);
  return {
    subscriptionsOf,
    subscriptionOf,
    invoicesOf,
    customerInvoicesOf,
    chargesOf,
    planOfPrice,
    itemsByPlan,
    priceOf,
    updatesOf,
    itemChanges,
    keysSent,
    customersOf,
    checkoutSessionsOf,
  };
};

/** Runs `work` with faults on the emulator, then removes every fault left. */
export const withFaults = async <T>(
  emulator: ProcessorEmulator,
  faults: ProcessorFault[],
  work: () => Promise<T>,
): Promise<T> => {
  emulator.faults.push(...faults);
  try {
    return await work();
  } finally {
    emulator.faults.length = 0;
  }
};

/**
 * Item changes under keys starting `keyPrefix` are applied but their answer is lost (`times`
 * times); with `unreadable`, from the first of them on that subscription cannot be read back
 * either, so the sender cannot decide by reading.
 */
export const lostAnswers = (
  emulator: ProcessorEmulator,
  keyPrefix: string,
  options: { times?: number; unreadable?: string } = {},
): ProcessorFault => ({
  method: 'POST',
  keyPrefix,
  kind: 'lose-answer',
  times: options.times ?? Number.POSITIVE_INFINITY,
  ...(options.unreadable
    ? {
        onHit: () => {
          if (!emulator.faults.some((f) => f.method === 'GET'))
            emulator.faults.push({
              method: 'GET',
              path: `/v1/subscriptions/${options.unreadable}`,
              kind: 'unavailable',
              times: Number.POSITIVE_INFINITY,
            });
        },
      }
    : {}),
});

/** Runs `work` while the Plan's active price is missing at the processor (its requests are refused). */
export const withPriceMissing = async <T>(
  emulator: ProcessorEmulator,
  plan: string,
  work: () => Promise<T>,
): Promise<T> => {
  const price = processorView(emulator).priceOf(plan);
  delete emulator.state.prices[price.id];
  try {
    return await work();
  } finally {
    emulator.state.prices[price.id] = price;
  }
};

/**
 * A monthly US-dollar price of `product`, made through the emulator's API as the processor's
 * dashboard would (`more`: further parameters, such as a lookup key).
 */
export const monthlyPrice = (
  emulator: ProcessorEmulator,
  product: string,
  unitAmount: number,
  more: Record<string, string> = {},
) =>
  emulator.route('POST', '/v1/prices', {
    product,
    unit_amount: String(unitAmount),
    currency: 'usd',
    recurring: { interval: 'month' },
    ...more,
  }) as { id: string; lookup_key: string | null };
