import type Stripe from 'stripe';
import { call, MANAGED_BY } from './client.ts';
import { ProcessorError } from './errors.ts';

let portalConfiguration: string | undefined;

/** Ours among the account's portal configurations (there may be others). */
const isOurPortalConfiguration = (configuration: Stripe.BillingPortal.Configuration): boolean =>
  configuration.metadata?.managed_by === MANAGED_BY && configuration.active;

const findPortalConfiguration = async (): Promise<string> => {
  if (portalConfiguration) return portalConfiguration;
  const configurations = await call((stripe, options) =>
    stripe.billingPortal.configurations.list({ limit: 100 }, options),
  );
  const ours = configurations.data.find(isOurPortalConfiguration);
  if (!ours)
    throw new ProcessorError('rejected', 'no billing portal configuration of ours: run processor:sync');
  portalConfiguration = ours.id;
  return ours.id;
};

/** A Billing Portal session that can only update the payment method and cancel. */
export const createPortalSession = async (params: {
  customerId: string;
  returnUrl: string;
  requestId: string;
}): Promise<string> => {
  const configuration = await findPortalConfiguration();
  const session = await call((stripe, options) =>
    stripe.billingPortal.sessions.create(
      { customer: params.customerId, configuration, return_url: params.returnUrl },
      { ...options, idempotencyKey: `portal:${params.customerId}:${params.requestId}` },
    ),
  );
  return session.url;
};

/** The portal this project needs: update the card and cancel at period end; no plan changes behind the Plan Change flow. */
const PORTAL_FEATURES = {
  payment_method_update: { enabled: true },
  subscription_cancel: { enabled: true, mode: 'at_period_end', proration_behavior: 'none' },
  subscription_update: { enabled: false },
  // Invoice history changes nothing and tenants need their invoices (docs/decisions.md).
  invoice_history: { enabled: true },
} as const;

/** Does a stored portal configuration have exactly the features above? */
const portalMatches = (configuration: Stripe.BillingPortal.Configuration): boolean => {
  const features = configuration.features;
  return (
    features.payment_method_update.enabled === PORTAL_FEATURES.payment_method_update.enabled &&
    features.subscription_cancel.enabled === PORTAL_FEATURES.subscription_cancel.enabled &&
    features.subscription_cancel.mode === PORTAL_FEATURES.subscription_cancel.mode &&
    features.subscription_update.enabled === PORTAL_FEATURES.subscription_update.enabled &&
    features.invoice_history.enabled === PORTAL_FEATURES.invoice_history.enabled
  );
};

/**
 * The Billing Portal configuration of ours: created once, and brought back in line with the code
 * whenever it differs (part of processor:sync, see catalog.ts). Idempotent.
 */
export const syncPortalConfiguration = async (): Promise<'created' | 'updated' | 'unchanged'> => {
  const configurations = await call((stripe, options) =>
    stripe.billingPortal.configurations.list({ limit: 100 }, options),
  );
  const ours = configurations.data.find(isOurPortalConfiguration);
  if (!ours) {
    await call((stripe, options) =>
      stripe.billingPortal.configurations.create(
        { features: PORTAL_FEATURES, metadata: { managed_by: MANAGED_BY } },
        { ...options, idempotencyKey: `portal-configuration:${MANAGED_BY}:v1` },
      ),
    );
    return 'created';
  }
  if (portalMatches(ours)) return 'unchanged';
  await call((stripe, options) =>
    stripe.billingPortal.configurations.update(
      ours.id,
      { features: PORTAL_FEATURES },
      { ...options, idempotencyKey: `portal-configuration:${ours.id}:${ours.updated ?? ours.created}` },
    ),
  );
  return 'updated';
};
