import * as catalog from './catalog.ts';
import * as checkout from './checkout.ts';
import type { EmulatorContext } from './context.ts';
import { fail, missing, StripeApiError } from './errors.ts';
import type { FormObject } from './form.ts';
import * as invoices from './invoices.ts';
import * as payments from './payments.ts';
import * as portal from './portal.ts';
import { createPreview } from './preview.ts';
import * as subscriptions from './subscriptions.ts';

/** The REST API subset the project calls (docs/decisions.md lists what is emulated). */
export const route = (
  ctx: EmulatorContext,
  method: string,
  pathname: string,
  params: FormObject,
): unknown => {
  const parts = pathname.split('/').filter(Boolean).slice(1);
  const [resource, id] = parts;
  const nested = parts[0] === 'checkout' || parts[0] === 'billing_portal';
  const key = `${method} ${resource ?? ''}${nested ? `/${id ?? ''}` : ''}`;
  const unrecognized = () => new StripeApiError(404, `Unrecognized request URL (${method}: ${pathname}).`);
  switch (key) {
    case 'POST customers':
      return id ? catalog.updateCustomer(ctx, id, params) : catalog.createCustomer(ctx, params);
    case 'GET customers':
      if (!id) throw new StripeApiError(400, 'Listing customers is not emulated.');
      return catalog.getCustomer(ctx, id);
    case 'POST products':
      return catalog.createProduct(ctx, params);
    case 'GET products':
      return id ? catalog.getProduct(ctx, id) : catalog.listProducts(ctx);
    case 'POST prices':
      return id ? catalog.updatePrice(ctx, id, params) : catalog.createPrice(ctx, params);
    case 'GET prices':
      return id ? catalog.getPrice(ctx, id) : catalog.listPrices(ctx, params);
    case 'POST coupons':
      return catalog.createCoupon(ctx, params);
    case 'POST promotion_codes':
      return catalog.createPromotionCode(ctx, params);
    case 'GET promotion_codes':
      return catalog.listPromotionCodes(ctx, params);
    case 'POST checkout/sessions': {
      const sessionId = parts[2];
      if (!sessionId) return checkout.createCheckoutSession(ctx, params);
      if (parts[3] !== 'expire') throw unrecognized();
      return checkout.expireCheckoutSession(ctx, sessionId);
    }
    case 'GET checkout/sessions':
      return parts[2]
        ? checkout.getCheckoutSession(ctx, parts[2])
        : checkout.listCheckoutSessions(ctx, params);
    case 'POST billing_portal/configurations':
      return parts[2]
        ? portal.updatePortalConfiguration(ctx, parts[2], params)
        : portal.createPortalConfiguration(ctx, params);
    case 'GET billing_portal/configurations':
      return portal.listPortalConfigurations(ctx);
    case 'POST billing_portal/sessions':
      return portal.createPortalSession(ctx, params);
    case 'GET subscriptions':
      if (!id) return subscriptions.listSubscriptions(ctx, params);
      return ctx.render.subscription(ctx.state.subscriptions[id] ?? fail(missing('subscription', id)));
    case 'POST subscriptions':
      if (!id) throw new StripeApiError(400, 'Subscriptions are created through Checkout in this project.');
      return subscriptions.updateSubscription(ctx, id, params);
    case 'DELETE subscriptions':
      if (!id) throw new StripeApiError(404, 'Unrecognized request URL.');
      return subscriptions.cancelSubscription(ctx, id, params);
    case 'POST invoices':
      if (id === 'create_preview' && !parts[2]) return createPreview(ctx, params);
      if (!id || parts[2] !== 'void') throw unrecognized();
      return invoices.voidInvoice(ctx, id);
    case 'GET invoices':
      if (id) return ctx.render.invoice(ctx.state.invoices[id] ?? fail(missing('invoice', id)));
      return invoices.listInvoices(ctx, params);
    case 'GET invoice_payments':
      return invoices.listInvoicePayments(ctx, params);
    case 'GET invoiceitems':
      return invoices.listInvoiceItems(ctx, params);
    case 'GET payment_methods':
      if (!id) throw new StripeApiError(400, 'Listing payment methods is not emulated.');
      return ctx.render.paymentMethod(ctx.state.paymentMethods[id] ?? fail(missing('payment_method', id)));
    case 'GET payment_intents':
      if (!id) throw new StripeApiError(400, 'Listing payment intents is not emulated.');
      return payments.getPaymentIntent(ctx, id);
    case 'POST refunds':
      return payments.createRefund(ctx, params);
    case 'GET refunds':
      return payments.listRefunds(ctx, params);
    default:
      throw new StripeApiError(
        404,
        `Unrecognized request URL (${method}: ${pathname}). The emulator serves the subset this project calls.`,
      );
  }
};
