import type Stripe from 'stripe';
import { call } from './client.ts';

export const createCustomer = async (params: {
  tenantId: string;
  email: string | undefined;
  slug: string;
}): Promise<string> => {
  const customer = await call((stripe, options) =>
    stripe.customers.create(
      {
        ...(params.email ? { email: params.email } : {}),
        name: params.slug,
        metadata: { tenantId: params.tenantId },
      },
      { ...options, idempotencyKey: `customer:${params.tenantId}` },
    ),
  );
  return customer.id;
};

/** The customer's email address at the processor (null: none, or the customer was deleted). */
export const customerEmail = async (customerId: string): Promise<string | null> => {
  const customer = await call((stripe, options) => stripe.customers.retrieve(customerId, {}, options));
  if ('deleted' in customer && customer.deleted) return null;
  return (customer as Stripe.Customer).email ?? null;
};
