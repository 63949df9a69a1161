import { expect } from 'vitest';
import { Refusal } from '#core/refusal.ts';
import { grantMoneyBack } from '../../functions/billing/money-back.ts';
import { accountEmail } from '../../lib/local/code-host.ts';
import type { ProcessorEmulator } from '../../lib/local/processor/emulator.ts';
import { charge, newInvoice } from '../../lib/local/processor/invoices.ts';
import { processorView } from './processor-view.ts';

/**
 * What the money-back tests share: the administrator's address (the one the local code host gives
 * the account), a grant asked for by that address, the refusal a grant throws, and a charge the
 * processor makes of its own inside the window.
 */

type MoneyBackRequest = Parameters<typeof grantMoneyBack>[0];

/** The address the local code host gives an account: the administrator's. */
export const adminEmail = (tenant: { login: string }) => accountEmail(tenant.login);

/** A grant for the tenant asked for by its administrator at `requestedAt`, run at `now`. */
export const adminRequest = (
  tenant: { slug: string; login: string },
  requestedAt: Date,
  now: Date = requestedAt,
): MoneyBackRequest => ({ slug: tenant.slug, email: adminEmail(tenant), requestedAt, now });

/** The refusal a grant throws (fails the test when it is granted instead). */
export const refusalOf = async (request: MoneyBackRequest): Promise<Refusal> => {
  try {
    await grantMoneyBack(request);
  } catch (error) {
    if (error instanceof Refusal) return error;
    throw error;
  }
  throw new Error('granted, but a refusal was expected');
};

/**
 * The processor invoices what is pending now on the tenant's subscription and charges it (as an
 * "invoice now" or a billing threshold would): a charge of its own inside the money-back window.
 */
export const invoicePendingNow = (emulator: ProcessorEmulator, tenantId: string) => {
  const subscription = processorView(emulator).subscriptionOf(tenantId);
  const now = emulator.nowSeconds();
  const invoice = newInvoice(emulator, subscription, 'subscription_update', now, now, { items: [] });
  expect(invoice.total).toBeGreaterThan(0);
  expect(charge(emulator, invoice, subscription.defaultPaymentMethod, 'later')).toBe(true);
  return invoice;
};
