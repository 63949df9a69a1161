import { readFileSync } from 'node:fs';

/**
 * Stripe's own example objects (lib/local/processor/fixtures.json, from stripe/openapi): every
 * object the emulator answers with starts as a copy of the fixture of its resource, with our
 * values laid over it, so its field names and nesting are the current API's.
 */
const fixtures = (
  JSON.parse(readFileSync(new URL('./fixtures.json', import.meta.url), 'utf8')) as {
    resources: Record<string, Record<string, unknown>>;
  }
).resources;

export type ResourceName =
  | 'customer'
  | 'product'
  | 'price'
  | 'coupon'
  | 'promotion_code'
  | 'checkout.session'
  | 'billing_portal.configuration'
  | 'billing_portal.session'
  | 'subscription'
  | 'subscription_item'
  | 'invoice'
  | 'invoice_payment'
  | 'invoiceitem'
  | 'refund'
  | 'event'
  | 'payment_intent'
  | 'payment_method'
  | 'discount'
  | 'line_item';

export const fixture = (resource: ResourceName): Record<string, unknown> => {
  const found = fixtures[resource];
  if (!found) throw new Error(`no fixture for ${resource}`);
  return structuredClone(found);
};

/**
 * An object of `resource` in Stripe's shape: the fixture with `values` laid over it (top-level
 * keys replace the fixture's). The caller names the Stripe type it promises.
 */
export const shape = <T>(resource: ResourceName, values: Record<string, unknown>): T => {
  const base = fixture(resource);
  for (const key of Object.keys(values)) {
    if (!(key in base)) throw new Error(`${resource} has no field "${key}" in the current API`);
  }
  return { ...base, ...values, ...('livemode' in base ? { livemode: false } : {}) } as T;
};
