import { escapeHtml } from '../../../functions/core/html.ts';
import {
  applyPromotionCode,
  asksForCountry,
  DEFAULT_CHECKOUT_COUNTRY,
  openSession,
  payCheckout,
  saveCheckoutCountry,
  sessionAmounts,
} from './checkout.ts';
import type { EmulatorContext } from './context.ts';
import { StripeApiError } from './errors.ts';
import { type FormObject, str } from './form.ts';
import { cancelFromPortal, updatePaymentMethod } from './portal.ts';
import type { CouponRecord } from './state.ts';

/**
 * The hosted pages of the processor emulator: Checkout (`/c/pay/<session>`), the Billing
 * Portal (`/p/session/<session>`) and the hosted invoice page (`/i/<invoice>`, its PDF's stand-in at `/i/<invoice>/pdf`). Plain HTML forms that work without JavaScript.
 */

export interface PageResult {
  status: number;
  html?: string;
  redirect?: string;
}

/** The countries the Checkout page offers (any ISO code is accepted when posted). */
const CHECKOUT_COUNTRIES = ['US', 'DE', 'FR', 'NL', 'GB', 'CA'];

const money = (minor: number) => `US$${(minor / 100).toFixed(2)}`;

/**
 * For how many billing periods a coupon applies, as the Checkout page says it: the whole
 * subscription (every Stack, prorations included) is discounted for those periods, then charged
 * in full.
 */
export const discountTerms = (coupon: CouponRecord): string => {
  const off =
    coupon.percentOff !== null ? `${coupon.percentOff}% off` : `${money(coupon.amountOff ?? 0)} off`;
  if (coupon.duration === 'forever') return `${off} every month`;
  const months = coupon.duration === 'once' ? 1 : (coupon.durationInMonths ?? 1);
  return `${off} the whole subscription for the first ${months === 1 ? 'month' : `${months} months`} (${months === 1 ? '1 billing period' : `${months} billing periods`}), then the full price`;
};

const layout = (title: string, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#1a1f36}
h1{font-size:1.4rem}table{width:100%;border-collapse:collapse;margin:1rem 0}td{padding:.3rem 0}td.amount{text-align:right}
tr.total td{border-top:1px solid #ccc;font-weight:600}label{display:block;margin:.8rem 0 .2rem}
input,select{width:100%;padding:.5rem;box-sizing:border-box;font-size:1rem}button{margin-top:1rem;padding:.6rem 1.2rem;font-size:1rem}
.error{color:#b3093c;font-weight:600}.note{color:#555;font-size:.9rem}.row{display:flex;gap:.5rem}.row>*{flex:1}
</style></head><body>${body}
<p class="note">Processor emulator (local stand-in for the hosted pages). Test cards: 4242 4242 4242 4242 succeeds,
4000 0000 0000 0002 is declined, 4000 0000 0000 0341 attaches but later charges fail.</p></body></html>`;

const alert = (message: string | undefined) =>
  message ? `<p role="alert" class="error">${escapeHtml(message)}</p>` : '';

const inactivePage = (message: string): PageResult => ({
  status: 410,
  html: layout('Checkout', `<h1>Checkout</h1>${alert(message)}`),
});

const checkoutPage = (
  emulator: EmulatorContext,
  sessionId: string,
  message?: string,
  status = 200,
): PageResult => {
  const session = openSession(emulator, sessionId);
  const amounts = sessionAmounts(emulator, session);
  const state = emulator.state;
  const rows = session.lineItems
    .map((item) => {
      const price = state.prices[item.price];
      const product = price ? state.products[price.product] : undefined;
      return `<tr><td>${escapeHtml(product?.name ?? 'Plan')} × ${item.quantity}<br><span class="note">${money(price?.unitAmount ?? 0)} per month</span></td><td class="amount">${money((price?.unitAmount ?? 0) * item.quantity)}</td></tr>`;
    })
    .join('');
  const applied = session.discount?.promotionCode
    ? state.promotionCodes[session.discount.promotionCode]?.code
    : undefined;
  const total = amounts.subtotal - amounts.discount + amounts.tax;
  const coupon = session.discount ? state.coupons[session.discount.coupon] : undefined;
  const country = state.customers[session.customer]?.country ?? DEFAULT_CHECKOUT_COUNTRY;
  const countries = [...new Set([country, ...CHECKOUT_COUNTRIES])];
  const countryField = asksForCountry(session)
    ? `<label for="country">Country or region</label>
<div class="row"><select id="country" name="country" autocomplete="country">${countries
        .map(
          (code) =>
            `<option value="${escapeHtml(code)}"${code === country ? ' selected' : ''}>${escapeHtml(code)}</option>`,
        )
        .join(
          '',
        )}</select><button type="submit" name="action" value="update_total" formnovalidate>Update total</button></div>`
    : '';
  const codeField = session.allowPromotionCodes
    ? `<label for="promotion_code">Promotion code</label>
<div class="row"><input id="promotion_code" name="promotion_code" value="${escapeHtml(applied ?? '')}" autocomplete="off"><button type="submit" name="action" value="apply_code" formnovalidate>Apply</button></div>`
    : '';
  const html = layout(
    'Subscribe',
    `<h1>Subscribe</h1>
<table>${rows}
<tr><td>Subtotal</td><td class="amount">${money(amounts.subtotal)}</td></tr>
${amounts.discount ? `<tr><td>Discount${applied ? ` (${escapeHtml(applied)})` : ''}${coupon ? `<br><span class="note" data-testid="discount-periods">${escapeHtml(discountTerms(coupon))}</span>` : ''}</td><td class="amount">−${money(amounts.discount)}</td></tr>` : ''}
<tr><td>Tax</td><td class="amount">${money(amounts.tax)}</td></tr>
<tr class="total"><td>Total due today</td><td class="amount" data-testid="total">${money(total)}</td></tr></table>
${alert(message)}
<form method="post" action="/c/pay/${escapeHtml(session.id)}">
${codeField}
${countryField}
<label for="card_number">Card number</label>
<input id="card_number" name="card_number" inputmode="numeric" autocomplete="cc-number" placeholder="1234 1234 1234 1234" required>
<div class="row"><div><label for="card_expiry">Expiry</label><input id="card_expiry" name="card_expiry" placeholder="MM / YY" autocomplete="cc-exp" required></div>
<div><label for="card_cvc">CVC</label><input id="card_cvc" name="card_cvc" placeholder="CVC" autocomplete="cc-csc" required></div></div>
<label for="cardholder_name">Cardholder name</label>
<input id="cardholder_name" name="cardholder_name" autocomplete="cc-name">
<button type="submit" name="action" value="pay">Subscribe</button>
${session.cancelUrl ? `<p><a href="${escapeHtml(session.cancelUrl)}">Cancel and go back</a></p>` : ''}
</form>`,
  );
  return { status, html };
};

const postCheckout = (emulator: EmulatorContext, sessionId: string, form: FormObject): PageResult => {
  const code = str(form.promotion_code)?.trim() ?? '';
  const session = openSession(emulator, sessionId);
  if (code && !session.allowPromotionCodes)
    return checkoutPage(emulator, sessionId, 'This checkout does not accept promotion codes.', 400);
  const appliedCode = session.discount?.promotionCode
    ? emulator.state.promotionCodes[session.discount.promotionCode]?.code
    : undefined;
  if (code && code.toLowerCase() !== appliedCode?.toLowerCase()) {
    const problem = applyPromotionCode(emulator, sessionId, code);
    if (problem) return checkoutPage(emulator, sessionId, problem, 400);
  }
  if (str(form.action) === 'apply_code' || str(form.action) === 'update_total') {
    const problem = str(form.country) ? saveCheckoutCountry(emulator, session, str(form.country)) : undefined;
    return problem ? checkoutPage(emulator, sessionId, problem, 400) : checkoutPage(emulator, sessionId);
  }
  const result = payCheckout(emulator, sessionId, str(form.card_number) ?? '', str(form.country));
  if (!result.ok) return checkoutPage(emulator, sessionId, result.message, 402);
  return { status: 303, redirect: result.redirect };
};

const portalPage = (
  emulator: EmulatorContext,
  sessionId: string,
  message?: string,
  status = 200,
): PageResult => {
  const session = emulator.state.portalSessions[sessionId];
  if (!session)
    return {
      status: 404,
      html: layout('Billing portal', '<h1>Billing portal</h1><p class="error">This link is not valid.</p>'),
    };
  const configuration = emulator.state.portalConfigurations[session.configuration];
  const customer = emulator.state.customers[session.customer];
  const subscriptions = Object.values(emulator.state.subscriptions).filter(
    (s) => s.customer === session.customer,
  );
  const card = customer?.defaultPaymentMethod
    ? emulator.state.paymentMethods[customer.defaultPaymentMethod]
    : undefined;
  const summary = subscriptions
    .map((s) => {
      const lines = s.items
        .map((item) => {
          const price = emulator.state.prices[item.price];
          return `${escapeHtml(price ? (emulator.state.products[price.product]?.name ?? 'Plan') : 'Plan')} × ${item.quantity}`;
        })
        .join(', ');
      const renews = new Date(s.currentPeriodEnd * 1000).toISOString().slice(0, 10);
      const state =
        s.status === 'canceled'
          ? 'Canceled'
          : s.cancelAtPeriodEnd
            ? `Cancels on ${renews}`
            : `Renews on ${renews}`;
      return `<li>${lines}: <strong data-testid="subscription-status">${escapeHtml(s.status)}</strong> · ${state}</li>`;
    })
    .join('');
  const canCancel =
    configuration?.subscriptionCancel &&
    subscriptions.some((s) => s.status !== 'canceled' && !s.cancelAtPeriodEnd);
  const html = layout(
    'Billing portal',
    `<h1>Billing portal</h1>${alert(message)}
<h2>Subscription</h2><ul>${summary || '<li>None</li>'}</ul>
<h2>Payment method</h2><p>${card ? `${escapeHtml(card.brand)} ending in ${escapeHtml(card.last4)}` : 'None'}</p>
${
  configuration?.paymentMethodUpdate
    ? `<form method="post" action="/p/session/${escapeHtml(session.id)}/payment-method">
<label for="card_number">New card number</label><input id="card_number" name="card_number" inputmode="numeric" autocomplete="cc-number" required>
<div class="row"><div><label for="card_expiry">Expiry</label><input id="card_expiry" name="card_expiry" placeholder="MM / YY" required></div>
<div><label for="card_cvc">CVC</label><input id="card_cvc" name="card_cvc" required></div></div>
<button type="submit">Update payment method</button></form>`
    : ''
}
${
  canCancel
    ? `<form method="post" action="/p/session/${escapeHtml(session.id)}/cancel"><h2>Cancel</h2>
<p class="note">${configuration?.cancelMode === 'immediately' ? 'Your subscription ends now.' : 'Your subscription ends at the end of the current period.'}</p>
<button type="submit">Cancel subscription</button></form>`
    : ''
}
${session.returnUrl ? `<p><a href="${escapeHtml(session.returnUrl)}">Return</a></p>` : ''}`,
  );
  return { status, html };
};

/** The hosted invoice page (`/i/<invoice>`): what the invoice says, as the processor shows it. */
const invoicePage = (emulator: EmulatorContext, invoiceId: string): PageResult => {
  const invoice = emulator.state.invoices[invoiceId];
  if (!invoice || invoice.status === 'draft')
    return { status: 404, html: layout('Invoice', '<h1>Invoice</h1><p class="error">No such invoice.</p>') };
  const day = (epoch: number) => new Date(epoch * 1000).toISOString().slice(0, 10);
  const lines = invoice.lines
    .map((line) => `<tr><td>${escapeHtml(line.description)}</td><td>${money(line.amount)}</td></tr>`)
    .join('');
  const html = layout(
    `Invoice ${invoice.number}`,
    `<h1>Invoice ${escapeHtml(invoice.number)}</h1>
<p>Issued ${day(invoice.created)} · <strong data-testid="invoice-status">${escapeHtml(invoice.status)}</strong></p>
<table><thead><tr><th>Description</th><th>Amount</th></tr></thead><tbody>${lines}</tbody></table>
<p>Subtotal ${money(invoice.subtotal)} · Discount ${money(invoice.discountAmount)} · Tax ${money(invoice.tax)}</p>
<p><strong>Total ${money(invoice.total)}</strong> · Paid ${money(invoice.amountPaid)}</p>`,
  );
  return { status: 200, html };
};

export const renderPage = (
  emulator: EmulatorContext,
  method: string,
  pathname: string,
  form: FormObject,
): PageResult => {
  try {
    const checkout = /^\/c\/pay\/([^/]+)$/.exec(pathname);
    if (checkout?.[1])
      return method === 'POST'
        ? postCheckout(emulator, checkout[1], form)
        : checkoutPage(emulator, checkout[1]);
    const portal = /^\/p\/session\/([^/]+)(?:\/(payment-method|cancel))?$/.exec(pathname);
    if (portal?.[1]) {
      const session = emulator.state.portalSessions[portal[1]];
      if (method === 'POST' && session && portal[2] === 'payment-method') {
        const problem = updatePaymentMethod(emulator, session.customer, str(form.card_number) ?? '');
        return portalPage(
          emulator,
          portal[1],
          problem ?? 'Your payment method was updated.',
          problem ? 402 : 200,
        );
      }
      if (method === 'POST' && session && portal[2] === 'cancel') {
        cancelFromPortal(emulator, session.customer, session.configuration);
        return session.returnUrl
          ? { status: 303, redirect: session.returnUrl }
          : portalPage(emulator, portal[1], 'Your subscription was canceled.');
      }
      return portalPage(emulator, portal[1]);
    }
    // `/i/<invoice>/pdf`: the PDF's stand-in, the same page.
    const invoice = /^\/i\/([^/]+)(?:\/pdf)?$/.exec(pathname);
    if (invoice?.[1] && method === 'GET') return invoicePage(emulator, invoice[1]);
    if (pathname === '/')
      return {
        status: 200,
        html: layout(
          'Processor emulator',
          '<h1>Processor emulator</h1><p>Serves the Stripe API subset under /v1 and the hosted pages.</p>',
        ),
      };
    return { status: 404, html: layout('Not found', '<h1>Not found</h1>') };
  } catch (error) {
    if (error instanceof StripeApiError) return inactivePage(error.message);
    throw error;
  }
};
