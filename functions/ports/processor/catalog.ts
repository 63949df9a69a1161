import Stripe from 'stripe';
import type { PlanValue } from '#core/plans.ts';
import { catalogAt } from '#core/price-lock.ts';
import { config } from '../config.ts';
import { call, MANAGED_BY } from './client.ts';
import { ProcessorError } from './errors.ts';
import { syncPortalConfiguration } from './portal.ts';

/** The lookup key of a Plan's monthly price: the catalog is found by it, never by price id. */
export const planLookupKey = (plan: PlanValue): string => `stack_plan_${plan}_monthly`;

const priceCache = new Map<PlanValue, { id: string; until: number }>();
/** Lookups under way: callers that miss the cache at once share one processor call. */
const lookups = new Map<PlanValue, Promise<string>>();

/**
 * The current price of a Plan (cached for a few minutes per Lambda instance). When the cache
 * runs out under a busy sweep, its reconciliations wait for the one lookup instead of each
 * spending a place of the processor budget on the same answer (issue 23's scale bench).
 */
export const priceIdForPlan = async (plan: PlanValue, nowMs: number): Promise<string> => {
  const cached = priceCache.get(plan);
  if (cached && cached.until > nowMs) return cached.id;
  const underWay = lookups.get(plan);
  if (underWay) return underWay;
  const lookup = (async () => {
    const prices = await call((stripe, options) =>
      stripe.prices.list({ lookup_keys: [planLookupKey(plan)], active: true, limit: 1 }, options),
    );
    const price = prices.data[0];
    if (!price)
      throw new ProcessorError(
        'rejected',
        `no active price with lookup key ${planLookupKey(plan)}: run processor:sync`,
      );
    priceCache.set(plan, { id: price.id, until: nowMs + 5 * 60_000 });
    return price.id;
  })().finally(() => lookups.delete(plan));
  lookups.set(plan, lookup);
  return lookup;
};

/**
 * Creates or finds the catalog: one product and one monthly USD price per Plan, found by lookup
 * key; a changed price becomes a new price that takes the lookup key over (locked Stacks keep the
 * old price id). Also the Billing Portal configuration: created once, and brought back in line
 * with the code whenever it differs. Idempotent.
 */
export const syncCatalog = async (): Promise<{
  plans: { plan: PlanValue; priceId: string; created: boolean }[];
  portal: 'created' | 'updated' | 'unchanged';
}> => {
  const results: { plan: PlanValue; priceId: string; created: boolean }[] = [];
  // Prices may change now: this instance reads them again.
  priceCache.clear();
  for (const plan of catalogAt(config.planPrices())) {
    const productId = `stack_plan_${plan.value}`;
    await call(async (stripe, options) => {
      try {
        await stripe.products.retrieve(productId, {}, options);
      } catch (error) {
        if (!(error instanceof Stripe.errors.StripeError) || error.statusCode !== 404) throw error;
        await stripe.products.create(
          {
            id: productId,
            name: `Stack Plan: ${plan.name}`,
            metadata: { plan: plan.value, managed_by: MANAGED_BY },
          },
          { ...options, idempotencyKey: `product:${productId}` },
        );
      }
    });
    const existing = (
      await call((stripe, options) =>
        stripe.prices.list({ lookup_keys: [planLookupKey(plan.value)], limit: 1 }, options),
      )
    ).data[0];
    // Today's list price: the catalog's, or the one configured in PLAN_PRICES (a price change).
    const wanted = plan.monthlyPrice;
    if (
      existing &&
      existing.unit_amount === wanted.amount &&
      existing.currency === wanted.currency.toLowerCase() &&
      existing.active
    ) {
      results.push({ plan: plan.value, priceId: existing.id, created: false });
      continue;
    }
    const price = await call((stripe, options) =>
      stripe.prices.create(
        {
          product: productId,
          unit_amount: wanted.amount,
          currency: wanted.currency.toLowerCase(),
          recurring: { interval: 'month' },
          lookup_key: planLookupKey(plan.value),
          transfer_lookup_key: true,
          tax_behavior: 'exclusive',
          metadata: { plan: plan.value, managed_by: MANAGED_BY },
        },
        // The price it replaces is in the key: a price that goes back to an earlier amount is a new price.
        {
          ...options,
          idempotencyKey: `price:${plan.value}:${wanted.amount}:${wanted.currency}${existing ? `:after:${existing.id}` : ''}`,
        },
      ),
    );
    results.push({ plan: plan.value, priceId: price.id, created: true });
  }
  return { plans: results, portal: await syncPortalConfiguration() };
};
