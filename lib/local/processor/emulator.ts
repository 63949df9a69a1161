import { createHmac, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import path from 'node:path';
import { closeServer, listenOn } from '../ports.ts';
import { bool, type FormObject, type FormValue, int, list, obj, parseForm, str, stringMap } from './form.ts';
import { renderPage } from './pages.ts';
import { Renderer } from './render.ts';
import {
  type AppliedDiscount,
  addMonths,
  type CardBehavior,
  type CheckoutSessionRecord,
  cardBehavior,
  emptyState,
  type InvoiceLine,
  type InvoiceRecord,
  type LineItem,
  type ProcessorState,
  type SubscriptionRecord,
} from './state.ts';

/** The API version the emulator answers as (the one the stripe package pins). */
export const EMULATED_API_VERSION = '2026-10-28.endive';

/** A refusal in Stripe's error shape. */
export class StripeApiError extends Error {
  readonly status: number;
  readonly type: string;
  readonly param: string | undefined;
  readonly code: string | undefined;
  constructor(
    status: number,
    message: string,
    options: { type?: string; param?: string; code?: string } = {},
  ) {
    super(message);
    this.status = status;
    this.type = options.type ?? 'invalid_request_error';
    this.param = options.param;
    this.code = options.code;
  }
}

const missing = (kind: string, id: string, param = 'id') =>
  new StripeApiError(404, `No such ${kind}: '${id}'`, { code: 'resource_missing', param });

export interface WebhookTarget {
  url: string;
  secret: string;
}

export interface EmulatorOptions {
  now: () => Date;
  /** Where the state is kept across restarts; in memory when absent. */
  stateFile?: string;
  webhook?: WebhookTarget;
}

export interface RecordedCall {
  method: string;
  path: string;
  params: FormObject;
  idempotencyKey: string | undefined;
  at: number;
}

export interface DeliveredEvent {
  id: string;
  type: string;
  status: number;
}

const CARD_MESSAGES: Record<Exclude<CardBehavior, 'succeeds' | 'fails_later'>, string> = {
  declined: 'Your card was declined.',
  invalid: 'Your card number is invalid.',
};

/**
 * A local stand-in for the payment processor: the subset of Stripe's REST API this project calls,
 * its hosted Checkout and Billing Portal pages, renewals as the shared clock passes period ends,
 * and signed webhooks.
 */
export class ProcessorEmulator {
  state: ProcessorState;
  readonly render: Renderer;
  readonly delivered: DeliveredEvent[] = [];
  /**
   * Every API request received, in order (kept in memory only): what the control plane asked of
   * the processor, so tests can check our calls and their idempotency keys, not only the outcome.
   */
  readonly calls: RecordedCall[] = [];
  /** Delay before every API answer, to try timeouts and deadlines (0 by default). */
  latencyMs = 0;
  private readonly options: EmulatorOptions;
  private server: Server | undefined;
  private baseUrl = '';
  private deliveryChain: Promise<void> = Promise.resolve();

  constructor(options: EmulatorOptions) {
    this.options = options;
    this.state =
      options.stateFile && existsSync(options.stateFile)
        ? (JSON.parse(readFileSync(options.stateFile, 'utf8')) as ProcessorState)
        : emptyState();
    this.render = new Renderer(
      () => this.state,
      () => this.baseUrl,
    );
  }

  get url(): string {
    return this.baseUrl;
  }

  /** Where webhooks go; `undefined` keeps events without delivering them. */
  setWebhook(target: WebhookTarget | undefined): void {
    if (target) this.options.webhook = target;
    else delete this.options.webhook;
  }

  nowSeconds(): number {
    return Math.floor(this.options.now().getTime() / 1000);
  }

  newId(prefix: string): string {
    this.state.sequence += 1;
    return `${prefix}_${randomBytes(9).toString('base64url').replace(/[-_]/g, 'x')}${this.state.sequence.toString(36)}`;
  }

  private saveTimer: NodeJS.Timeout | undefined;

  /** Keeps the state file current without rewriting it on every request (at most every 250 ms). */
  private save(): void {
    if (!this.options.stateFile || this.saveTimer) return;
    this.saveTimer = setTimeout(() => this.saveNow(), 250);
    this.saveTimer.unref();
  }

  private saveNow(): void {
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    if (!this.options.stateFile) return;
    mkdirSync(path.dirname(this.options.stateFile), { recursive: true });
    writeFileSync(this.options.stateFile, JSON.stringify(this.state));
  }

  // ---- events and webhooks ----

  emit(type: string, object: unknown, previousAttributes?: Record<string, unknown>): void {
    const id = this.newId('evt');
    const event = {
      id,
      object: 'event',
      api_version: EMULATED_API_VERSION,
      created: this.nowSeconds(),
      data: { object, ...(previousAttributes ? { previous_attributes: previousAttributes } : {}) },
      livemode: false,
      pending_webhooks: this.options.webhook ? 1 : 0,
      request: { id: null, idempotency_key: null },
      type,
    };
    this.state.events[id] = event;
    const payload = JSON.stringify(event, null, 2);
    this.deliveryChain = this.deliveryChain.then(() => this.deliver(id, type, payload));
  }

  /** Stripe-Signature: `t=<timestamp>,v1=<HMAC-SHA256 of "t.payload" with the endpoint secret>`. */
  static signature(payload: string, secret: string, timestamp: number): string {
    const v1 = createHmac('sha256', secret).update(`${timestamp}.${payload}`).digest('hex');
    return `t=${timestamp},v1=${v1}`;
  }

  private async deliver(id: string, type: string, payload: string): Promise<void> {
    const target = this.options.webhook;
    if (!target) return;
    for (let attempt = 0; attempt < 4; attempt++) {
      try {
        const timestamp = this.nowSeconds();
        const response = await fetch(target.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json; charset=utf-8',
            'stripe-signature': ProcessorEmulator.signature(payload, target.secret, timestamp),
            'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
          },
          body: payload,
          signal: AbortSignal.timeout(10_000),
        });
        await response.arrayBuffer();
        this.delivered.push({ id, type, status: response.status });
        if (response.ok) return;
      } catch {
        this.delivered.push({ id, type, status: 0 });
      }
      await new Promise((resolve) => setTimeout(resolve, 200 * 4 ** attempt));
    }
  }

  /** Resolves once every event emitted so far has been delivered (or given up). */
  async flushWebhooks(): Promise<void> {
    let chain: Promise<void>;
    do {
      chain = this.deliveryChain;
      await chain;
    } while (chain !== this.deliveryChain);
  }

  // ---- amounts ----

  private amountOf(items: LineItem[]): number {
    return items.reduce(
      (sum, item) => sum + (this.state.prices[item.price]?.unitAmount ?? 0) * item.quantity,
      0,
    );
  }

  private discountAmount(discount: AppliedDiscount | null, subtotal: number): number {
    if (!discount) return 0;
    const coupon = this.state.coupons[discount.coupon];
    if (!coupon) return 0;
    if (coupon.percentOff !== null) return Math.round((subtotal * coupon.percentOff) / 100);
    return Math.min(subtotal, coupon.amountOff ?? 0);
  }

  sessionAmounts(session: CheckoutSessionRecord) {
    const subtotal = this.amountOf(session.lineItems);
    // Tax is computed as zero locally; the fields Stripe Tax fills are present (docs/decisions.md).
    return { subtotal, discount: this.discountAmount(session.discount, subtotal), tax: 0 };
  }

  /** Does a subscription's discount still apply to the period starting at `periodStart`? */
  private discountApplies(subscription: SubscriptionRecord, periodStart: number): AppliedDiscount | null {
    const discount = subscription.discount;
    if (!discount) return null;
    const coupon = this.state.coupons[discount.coupon];
    if (!coupon) return null;
    if (coupon.duration === 'forever') return discount;
    if (coupon.duration === 'once') return periodStart === subscription.startDate ? discount : null;
    return periodStart < addMonths(discount.start, coupon.durationInMonths ?? 0) ? discount : null;
  }

  // ---- charging ----

  private charge(
    invoice: InvoiceRecord,
    paymentMethodId: string | null,
    phase: 'checkout' | 'later',
  ): boolean {
    const customer = this.state.customers[invoice.customer];
    invoice.attemptCount += 1;
    if (invoice.total === 0) {
      invoice.status = 'paid';
      invoice.paidAt = this.nowSeconds();
      return true;
    }
    const method = paymentMethodId ? this.state.paymentMethods[paymentMethodId] : undefined;
    const succeeds =
      method !== undefined &&
      (method.behavior === 'succeeds' || (method.behavior === 'fails_later' && phase === 'checkout'));
    const intentId = invoice.paymentIntent ?? this.newId('pi');
    invoice.paymentIntent = intentId;
    this.state.paymentIntents[intentId] = {
      id: intentId,
      amount: invoice.total,
      amountRefunded: 0,
      customer: customer?.id ?? invoice.customer,
      paymentMethod: method?.id ?? null,
      status: succeeds ? 'succeeded' : 'requires_payment_method',
      invoice: invoice.id,
      created: this.nowSeconds(),
    };
    const paymentId =
      Object.values(this.state.invoicePayments).find((p) => p.invoice === invoice.id)?.id ??
      this.newId('inpay');
    this.state.invoicePayments[paymentId] = {
      id: paymentId,
      invoice: invoice.id,
      paymentIntent: intentId,
      amount: invoice.total,
      status: succeeds ? 'paid' : 'open',
      created: this.state.invoicePayments[paymentId]?.created ?? this.nowSeconds(),
      paidAt: succeeds ? this.nowSeconds() : null,
    };
    if (succeeds) {
      invoice.status = 'paid';
      invoice.amountPaid = invoice.total;
      invoice.paidAt = this.nowSeconds();
    }
    return succeeds;
  }

  private newInvoice(
    subscription: SubscriptionRecord,
    reason: InvoiceRecord['billingReason'],
    periodStart: number,
    periodEnd: number,
    created = this.nowSeconds(),
  ): InvoiceRecord {
    const id = this.newId('in');
    const lines: InvoiceLine[] = subscription.items.map((item) => {
      const price = this.state.prices[item.price];
      const product = price ? this.state.products[price.product] : undefined;
      return {
        id: this.newId('il'),
        description: `${item.quantity} × ${product?.name ?? 'Plan'} (at $${((price?.unitAmount ?? 0) / 100).toFixed(2)} / month)`,
        amount: (price?.unitAmount ?? 0) * item.quantity,
        quantity: item.quantity,
        price: item.price,
        subscriptionItem: item.id,
        periodStart,
        periodEnd,
        proration: false,
        invoiceItem: null,
      };
    });
    for (const pending of Object.values(this.state.invoiceItems)) {
      if (pending.invoice === null && pending.subscription === subscription.id) {
        pending.invoice = id;
        lines.push({
          id: this.newId('il'),
          description: pending.description,
          amount: pending.amount,
          quantity: pending.quantity,
          price: pending.price,
          subscriptionItem: null,
          periodStart: pending.periodStart,
          periodEnd: pending.periodEnd,
          proration: pending.proration,
          invoiceItem: pending.id,
        });
      }
    }
    const subtotal = lines.reduce((sum, line) => sum + line.amount, 0);
    const discount = this.discountApplies(subscription, periodStart);
    const discountAmount = Math.max(
      0,
      Math.min(subtotal, this.discountAmount(discount, Math.max(0, subtotal))),
    );
    const total = Math.max(0, subtotal - discountAmount);
    const invoice: InvoiceRecord = {
      id,
      customer: subscription.customer,
      subscription: subscription.id,
      billingReason: reason,
      status: 'open',
      lines,
      subtotal,
      discountAmount,
      discount,
      tax: 0,
      total,
      amountPaid: 0,
      attemptCount: 0,
      periodStart,
      periodEnd,
      created,
      paidAt: null,
      paymentIntent: null,
      number: `${subscription.customer.slice(-6).toUpperCase()}-${String(Object.keys(this.state.invoices).length + 1).padStart(4, '0')}`,
      subscriptionMetadata: { ...subscription.metadata },
    };
    this.state.invoices[id] = invoice;
    subscription.latestInvoice = id;
    return invoice;
  }

  private emitInvoiceOutcome(invoice: InvoiceRecord, paid: boolean): void {
    this.emit('invoice.created', this.render.invoice(invoice));
    this.emit('invoice.finalized', this.render.invoice(invoice));
    if (paid) {
      this.emit('invoice.paid', this.render.invoice(invoice));
      this.emit('invoice.payment_succeeded', this.render.invoice(invoice));
    } else {
      this.emit('invoice.payment_failed', this.render.invoice(invoice));
    }
  }

  // ---- checkout ----

  /** What the hosted Checkout page does when the customer pays. */
  payCheckout(
    sessionId: string,
    cardNumber: string,
  ): { ok: true; redirect: string } | { ok: false; message: string } {
    const session = this.openSession(sessionId);
    const behavior = cardBehavior(cardNumber);
    if (behavior === 'declined' || behavior === 'invalid')
      return { ok: false, message: CARD_MESSAGES[behavior] };
    const now = this.nowSeconds();
    const customer = this.state.customers[session.customer];
    if (!customer) throw missing('customer', session.customer);
    const paymentMethodId = this.newId('pm');
    const digits = cardNumber.replace(/\D/g, '');
    this.state.paymentMethods[paymentMethodId] = {
      id: paymentMethodId,
      customer: customer.id,
      last4: digits.slice(-4),
      brand: digits.startsWith('4') ? 'visa' : 'mastercard',
      behavior,
      created: now,
    };
    customer.defaultPaymentMethod = paymentMethodId;

    const subscriptionId = this.newId('sub');
    const subscription: SubscriptionRecord = {
      id: subscriptionId,
      customer: customer.id,
      status: 'active',
      items: session.lineItems.map((item) => ({
        id: this.newId('si'),
        price: item.price,
        quantity: item.quantity,
        created: now,
      })),
      created: now,
      startDate: now,
      currentPeriodStart: now,
      currentPeriodEnd: addMonths(now, 1),
      cancelAtPeriodEnd: false,
      cancelAt: null,
      canceledAt: null,
      endedAt: null,
      cancellationReason: null,
      metadata: { ...session.subscriptionMetadata },
      defaultPaymentMethod: paymentMethodId,
      discount: session.discount ? { ...session.discount, start: now } : null,
      latestInvoice: null,
      automaticTax: session.automaticTax,
    };
    this.state.subscriptions[subscriptionId] = subscription;
    if (session.discount?.promotionCode) {
      const code = this.state.promotionCodes[session.discount.promotionCode];
      if (code) code.timesRedeemed += 1;
    }
    const invoice = this.newInvoice(subscription, 'subscription_create', now, subscription.currentPeriodEnd);
    const paid = this.charge(invoice, paymentMethodId, 'checkout');
    session.status = 'complete';
    session.paymentStatus = invoice.total === 0 ? 'no_payment_required' : paid ? 'paid' : 'unpaid';
    session.subscription = subscriptionId;
    session.invoice = invoice.id;

    this.emit(
      'payment_method.attached',
      this.render.paymentMethod(this.state.paymentMethods[paymentMethodId] as never),
    );
    this.emit('customer.subscription.created', this.render.subscription(subscription));
    this.emitInvoiceOutcome(invoice, paid);
    this.emit(
      'checkout.session.completed',
      this.render.checkoutSession(session, this.sessionAmounts(session)),
    );
    this.save();
    return { ok: true, redirect: session.successUrl.replace('{CHECKOUT_SESSION_ID}', session.id) };
  }

  /** Applies a promotion code typed on the Checkout page. */
  applyPromotionCode(sessionId: string, code: string): string | undefined {
    const session = this.openSession(sessionId);
    if (!session.allowPromotionCodes) return 'This checkout does not accept promotion codes.';
    const promotion = Object.values(this.state.promotionCodes).find(
      (p) => p.code.toLowerCase() === code.trim().toLowerCase(),
    );
    if (
      !promotion?.active ||
      (promotion.maxRedemptions !== null && promotion.timesRedeemed >= promotion.maxRedemptions)
    ) {
      return 'This code is invalid.';
    }
    session.discount = { coupon: promotion.coupon, promotionCode: promotion.id };
    this.save();
    return undefined;
  }

  /** The session if it can still be paid; expires it when its time has passed. */
  openSession(sessionId: string): CheckoutSessionRecord {
    const session = this.state.checkoutSessions[sessionId];
    if (!session) throw missing('checkout.session', sessionId);
    if (session.status === 'open' && this.nowSeconds() >= session.expiresAt) this.expireSession(session);
    if (session.status !== 'open')
      throw new StripeApiError(400, 'This Checkout Session is no longer active.', {
        code: 'checkout_session_inactive',
      });
    return session;
  }

  private expireSession(session: CheckoutSessionRecord): void {
    session.status = 'expired';
    this.emit('checkout.session.expired', this.render.checkoutSession(session, this.sessionAmounts(session)));
    this.save();
  }

  // ---- renewals ----

  /** Bills every subscription whose period ended by now; expires Checkout Sessions past due. */
  tick(): void {
    const now = this.nowSeconds();
    for (const session of Object.values(this.state.checkoutSessions)) {
      if (session.status === 'open' && now >= session.expiresAt) this.expireSession(session);
    }
    for (const subscription of Object.values(this.state.subscriptions)) {
      while (subscription.status !== 'canceled' && subscription.currentPeriodEnd <= now) {
        if (subscription.cancelAtPeriodEnd) {
          this.endSubscription(subscription, subscription.currentPeriodEnd);
          break;
        }
        const previous = { status: subscription.status };
        subscription.currentPeriodStart = subscription.currentPeriodEnd;
        subscription.currentPeriodEnd = addMonths(subscription.currentPeriodStart, 1);
        // Like a test clock, the renewal happens at the period boundary, however late time is moved.
        const invoice = this.newInvoice(
          subscription,
          'subscription_cycle',
          subscription.currentPeriodStart,
          subscription.currentPeriodEnd,
          subscription.currentPeriodStart,
        );
        const paid = this.charge(invoice, subscription.defaultPaymentMethod, 'later');
        this.emitInvoiceOutcome(invoice, paid);
        if (!paid) subscription.status = 'past_due';
        this.emit(
          'customer.subscription.updated',
          this.render.subscription(subscription),
          previous.status !== subscription.status ? previous : {},
        );
      }
    }
    this.save();
  }

  private endSubscription(subscription: SubscriptionRecord, at: number): void {
    subscription.status = 'canceled';
    subscription.endedAt = at;
    subscription.canceledAt ??= at;
    this.emit('customer.subscription.deleted', this.render.subscription(subscription));
  }

  // ---- portal ----

  /** The portal's "update payment method": a new default card, then open invoices are retried. */
  updatePaymentMethod(customerId: string, cardNumber: string): string | undefined {
    const behavior = cardBehavior(cardNumber);
    if (behavior === 'declined' || behavior === 'invalid') return CARD_MESSAGES[behavior];
    const customer = this.state.customers[customerId];
    if (!customer) throw missing('customer', customerId);
    const id = this.newId('pm');
    const digits = cardNumber.replace(/\D/g, '');
    this.state.paymentMethods[id] = {
      id,
      customer: customerId,
      last4: digits.slice(-4),
      brand: 'visa',
      behavior,
      created: this.nowSeconds(),
    };
    customer.defaultPaymentMethod = id;
    this.emit('payment_method.attached', this.render.paymentMethod(this.state.paymentMethods[id] as never));
    for (const subscription of Object.values(this.state.subscriptions).filter(
      (s) => s.customer === customerId && s.status !== 'canceled',
    )) {
      subscription.defaultPaymentMethod = id;
      const open = Object.values(this.state.invoices).filter(
        (i) => i.subscription === subscription.id && i.status === 'open',
      );
      let allPaid = true;
      for (const invoice of open) {
        const paid = this.charge(invoice, id, 'later');
        allPaid &&= paid;
        this.emit(paid ? 'invoice.paid' : 'invoice.payment_failed', this.render.invoice(invoice));
      }
      if (allPaid && subscription.status === 'past_due') {
        subscription.status = 'active';
        this.emit('customer.subscription.updated', this.render.subscription(subscription), {
          status: 'past_due',
        });
      }
    }
    this.save();
    return undefined;
  }

  /** The portal's "cancel subscription", in the configuration's mode. */
  cancelFromPortal(customerId: string, configurationId: string): void {
    const configuration = this.state.portalConfigurations[configurationId];
    if (!configuration?.subscriptionCancel)
      throw new StripeApiError(400, 'Cancellation is not enabled in this portal.');
    const now = this.nowSeconds();
    for (const subscription of Object.values(this.state.subscriptions).filter(
      (s) => s.customer === customerId && s.status !== 'canceled',
    )) {
      subscription.canceledAt = now;
      subscription.cancellationReason = 'cancellation_requested';
      if (configuration.cancelMode === 'immediately') {
        this.endSubscription(subscription, now);
      } else {
        subscription.cancelAtPeriodEnd = true;
        subscription.cancelAt = subscription.currentPeriodEnd;
        this.emit('customer.subscription.updated', this.render.subscription(subscription), {
          cancel_at_period_end: false,
        });
      }
    }
    this.save();
  }

  // ---- HTTP ----

  async start(port = 0): Promise<string> {
    const server = createServer((request, response) => {
      this.handle(request, response).catch((error: unknown) => {
        if (!response.headersSent) this.sendError(response, error);
      });
    });
    this.server = server;
    this.baseUrl = `http://127.0.0.1:${await listenOn(server, port, '127.0.0.1')}`;
    return this.baseUrl;
  }

  async stop(): Promise<void> {
    await this.flushWebhooks();
    this.saveNow();
    if (this.server) await closeServer(this.server);
  }

  private sendError(response: ServerResponse, error: unknown): void {
    const apiError =
      error instanceof StripeApiError
        ? error
        : new StripeApiError(500, `Internal emulator error: ${(error as Error).message}`, {
            type: 'api_error',
          });
    response.writeHead(apiError.status, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        error: {
          type: apiError.type,
          message: apiError.message,
          ...(apiError.param ? { param: apiError.param } : {}),
          ...(apiError.code ? { code: apiError.code } : {}),
        },
      }),
    );
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const method = request.method ?? 'GET';
    this.tick();
    if (url.pathname.startsWith('/v1/')) {
      await this.handleApi(request, response, method, url, body);
      return;
    }
    const page = renderPage(this, method, url.pathname, parseForm(body));
    if (page.redirect) {
      response.writeHead(303, { location: page.redirect }).end();
      return;
    }
    response.writeHead(page.status, { 'content-type': 'text/html; charset=utf-8' }).end(page.html);
  }

  private async handleApi(
    request: IncomingMessage,
    response: ServerResponse,
    method: string,
    url: URL,
    body: string,
  ): Promise<void> {
    const authorization = request.headers.authorization ?? '';
    if (!/^Bearer sk_test_\w+/.test(authorization)) {
      throw new StripeApiError(401, 'Invalid API Key provided. Use a test secret key (sk_test_...).', {
        code: 'api_key_invalid',
      });
    }
    const params = method === 'GET' || method === 'DELETE' ? parseForm(url.search.slice(1)) : parseForm(body);
    const idempotencyKey = request.headers['idempotency-key'];
    if (this.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, this.latencyMs));
    this.calls.push({
      method,
      path: url.pathname,
      params,
      idempotencyKey: typeof idempotencyKey === 'string' ? idempotencyKey : undefined,
      at: this.nowSeconds(),
    });
    const fingerprint = `${method} ${url.pathname} ${method === 'POST' ? body : ''}`;
    if (method === 'POST' && typeof idempotencyKey === 'string') {
      const previous = this.state.idempotency[idempotencyKey];
      if (previous) {
        if (previous.fingerprint !== fingerprint) {
          throw new StripeApiError(
            400,
            'Keys for idempotent requests can only be used with the same parameters they were first used with.',
            {
              type: 'idempotency_error',
            },
          );
        }
        response
          .writeHead(previous.status, { 'content-type': 'application/json', 'idempotent-replayed': 'true' })
          .end(previous.body);
        return;
      }
    }
    let status = 200;
    let result: unknown;
    try {
      result = this.route(method, url.pathname, params);
    } catch (error) {
      if (!(error instanceof StripeApiError) || error.status >= 500) throw error;
      status = error.status;
      result = {
        error: {
          type: error.type,
          message: error.message,
          ...(error.param ? { param: error.param } : {}),
          ...(error.code ? { code: error.code } : {}),
        },
      };
    }
    const text = JSON.stringify(result);
    if (method === 'POST' && typeof idempotencyKey === 'string')
      this.state.idempotency[idempotencyKey] = { fingerprint, status, body: text };
    this.save();
    response
      .writeHead(status, {
        'content-type': 'application/json',
        'request-id': `req_${randomBytes(7).toString('hex')}`,
        'stripe-version': EMULATED_API_VERSION,
      })
      .end(text);
  }

  private list<T>(data: T[], url: string) {
    return { object: 'list', data, has_more: false, url };
  }

  /** The REST API subset (see docs/decisions.md for what is emulated). */
  route(method: string, pathname: string, params: FormObject): unknown {
    const parts = pathname.split('/').filter(Boolean).slice(1);
    const [resource, id] = parts;
    const key = `${method} ${resource ?? ''}${parts[0] === 'checkout' || parts[0] === 'billing_portal' ? `/${id ?? ''}` : ''}`;
    switch (key) {
      case 'POST customers':
        if (id) return this.updateCustomer(id, params);
        return this.createCustomer(params);
      case 'GET customers':
        if (!id) throw new StripeApiError(400, 'Listing customers is not emulated.');
        return this.render.customer(this.state.customers[id] ?? this.fail(missing('customer', id)));
      case 'POST products':
        return this.createProduct(params);
      case 'GET products':
        if (id) return this.render.product(this.state.products[id] ?? this.fail(missing('product', id)));
        return this.list(
          Object.values(this.state.products).map((p) => this.render.product(p)),
          '/v1/products',
        );
      case 'POST prices':
        if (id) return this.updatePrice(id, params);
        return this.createPrice(params);
      case 'GET prices':
        if (id) return this.render.price(this.state.prices[id] ?? this.fail(missing('price', id)));
        return this.listPrices(params);
      case 'POST coupons':
        return this.createCoupon(params);
      case 'POST promotion_codes':
        return this.createPromotionCode(params);
      case 'GET promotion_codes':
        return this.list(
          Object.values(this.state.promotionCodes)
            .filter((p) => !str(params.code) || p.code === str(params.code))
            .map((p) => this.render.promotionCode(p)),
          '/v1/promotion_codes',
        );
      case 'POST checkout/sessions': {
        const sessionId = parts[2];
        if (!sessionId) return this.createCheckoutSession(params);
        if (parts[3] !== 'expire')
          throw new StripeApiError(404, `Unrecognized request URL (${method}: ${pathname}).`);
        const session =
          this.state.checkoutSessions[sessionId] ?? this.fail(missing('checkout.session', sessionId));
        if (session.status !== 'open')
          throw new StripeApiError(400, `Only Checkout Sessions with a status in ["open"] can be expired.`);
        this.expireSession(session);
        return this.render.checkoutSession(session, this.sessionAmounts(session));
      }
      case 'GET checkout/sessions': {
        const sessionId = parts[2];
        if (!sessionId)
          return this.list(
            Object.values(this.state.checkoutSessions)
              .filter((session) => {
                if (session.status === 'open' && this.nowSeconds() >= session.expiresAt)
                  this.expireSession(session);
                return (
                  (!str(params.customer) || session.customer === str(params.customer)) &&
                  (!str(params.status) || session.status === str(params.status))
                );
              })
              .sort((a, b) => b.created - a.created)
              .map((session) => this.render.checkoutSession(session, this.sessionAmounts(session))),
            '/v1/checkout/sessions',
          );
        const session =
          this.state.checkoutSessions[sessionId] ?? this.fail(missing('checkout.session', sessionId));
        if (session.status === 'open' && this.nowSeconds() >= session.expiresAt) this.expireSession(session);
        return this.render.checkoutSession(session, this.sessionAmounts(session));
      }
      case 'POST billing_portal/configurations':
        if (parts[2]) return this.updatePortalConfiguration(parts[2], params);
        return this.createPortalConfiguration(params);
      case 'GET billing_portal/configurations':
        return this.list(
          Object.values(this.state.portalConfigurations).map((c) => this.render.portalConfiguration(c)),
          '/v1/billing_portal/configurations',
        );
      case 'POST billing_portal/sessions':
        return this.createPortalSession(params);
      case 'GET subscriptions':
        if (!id)
          return this.list(
            Object.values(this.state.subscriptions)
              .filter(
                (s) =>
                  (!str(params.customer) || s.customer === str(params.customer)) &&
                  // Stripe lists every status but canceled unless asked for `all` or one status.
                  (str(params.status) === 'all'
                    ? true
                    : str(params.status)
                      ? s.status === str(params.status)
                      : s.status !== 'canceled'),
              )
              .sort((a, b) => b.created - a.created)
              .map((s) => this.render.subscription(s)),
            '/v1/subscriptions',
          );
        return this.render.subscription(
          this.state.subscriptions[id] ?? this.fail(missing('subscription', id)),
        );
      case 'POST subscriptions':
        if (!id) throw new StripeApiError(400, 'Subscriptions are created through Checkout in this project.');
        return this.updateSubscription(id, params);
      case 'DELETE subscriptions':
        if (!id) throw new StripeApiError(404, 'Unrecognized request URL.');
        return this.cancelSubscription(id, params);
      case 'POST invoices': {
        if (!id || parts[2] !== 'void')
          throw new StripeApiError(404, `Unrecognized request URL (${method}: ${pathname}).`);
        const invoice = this.state.invoices[id] ?? this.fail(missing('invoice', id));
        if (invoice.status !== 'open' && invoice.status !== 'uncollectible')
          throw new StripeApiError(
            400,
            `You can only void invoices with a status of open or uncollectible.`,
            {
              code: 'invoice_not_open',
            },
          );
        invoice.status = 'void';
        for (const payment of Object.values(this.state.invoicePayments))
          if (payment.invoice === id && payment.status === 'open') payment.status = 'canceled';
        this.emit('invoice.voided', this.render.invoice(invoice));
        return this.render.invoice(invoice);
      }
      case 'GET invoices':
        if (id) return this.render.invoice(this.state.invoices[id] ?? this.fail(missing('invoice', id)));
        return this.list(
          Object.values(this.state.invoices)
            .filter(
              (i) =>
                (!str(params.subscription) || i.subscription === str(params.subscription)) &&
                (!str(params.customer) || i.customer === str(params.customer)) &&
                (!str(params.status) || i.status === str(params.status)),
            )
            .sort((a, b) => b.created - a.created)
            .map((i) => this.render.invoice(i)),
          '/v1/invoices',
        );
      case 'GET invoice_payments': {
        const invoice = str(params.invoice);
        return this.list(
          Object.values(this.state.invoicePayments)
            .filter((p) => !invoice || p.invoice === invoice)
            .map((p) => this.render.invoicePayment(p)),
          '/v1/invoice_payments',
        );
      }
      case 'GET invoiceitems':
        return this.list(
          Object.values(this.state.invoiceItems)
            .filter(
              (i) =>
                (!str(params.customer) || i.customer === str(params.customer)) &&
                (str(params.pending) !== 'true' || i.invoice === null),
            )
            .map((i) => this.render.invoiceItem(i)),
          '/v1/invoiceitems',
        );
      case 'GET payment_intents':
        if (!id) throw new StripeApiError(400, 'Listing payment intents is not emulated.');
        return this.render.paymentIntent(
          this.state.paymentIntents[id] ?? this.fail(missing('payment_intent', id)),
        );
      case 'POST refunds':
        return this.createRefund(params);
      case 'GET refunds':
        return this.list(
          Object.values(this.state.refunds)
            .filter((r) => !str(params.payment_intent) || r.paymentIntent === str(params.payment_intent))
            .sort((a, b) => b.created - a.created)
            .map((r) => this.render.refund(r)),
          '/v1/refunds',
        );
      default:
        throw new StripeApiError(
          404,
          `Unrecognized request URL (${method}: ${pathname}). The emulator serves the subset this project calls.`,
        );
    }
  }

  private fail(error: StripeApiError): never {
    throw error;
  }

  private createCustomer(params: FormObject) {
    const id = this.newId('cus');
    const address = obj(params.address);
    this.state.customers[id] = {
      id,
      email: str(params.email) ?? null,
      name: str(params.name) ?? null,
      metadata: stringMap(params.metadata),
      created: this.nowSeconds(),
      hasAddress: Boolean(str(address.country)),
      defaultPaymentMethod: null,
    };
    return this.render.customer(this.state.customers[id] as never);
  }

  private updateCustomer(id: string, params: FormObject) {
    const customer = this.state.customers[id] ?? this.fail(missing('customer', id));
    if (str(params.email) !== undefined) customer.email = str(params.email) ?? null;
    if (str(params.name) !== undefined) customer.name = str(params.name) ?? null;
    customer.metadata = { ...customer.metadata, ...stringMap(params.metadata) };
    return this.render.customer(customer);
  }

  private createProduct(params: FormObject) {
    const name = str(params.name);
    if (!name) throw new StripeApiError(400, 'Missing required param: name.', { param: 'name' });
    const id = str(params.id) ?? this.newId('prod');
    if (this.state.products[id])
      throw new StripeApiError(400, `Product already exists.`, {
        code: 'resource_already_exists',
        param: 'id',
      });
    this.state.products[id] = {
      id,
      name,
      active: bool(params.active) ?? true,
      metadata: stringMap(params.metadata),
      created: this.nowSeconds(),
    };
    return this.render.product(this.state.products[id] as never);
  }

  private createPrice(params: FormObject) {
    const product = str(params.product);
    if (!product || !this.state.products[product]) throw missing('product', product ?? '', 'product');
    const unitAmount = int(params.unit_amount);
    if (unitAmount === undefined || unitAmount < 0)
      throw new StripeApiError(400, 'Missing required param: unit_amount.', { param: 'unit_amount' });
    const currency = str(params.currency)?.toLowerCase();
    if (!currency) throw new StripeApiError(400, 'Missing required param: currency.', { param: 'currency' });
    const interval = str(obj(params.recurring).interval);
    if (interval !== 'month' && interval !== 'year')
      throw new StripeApiError(400, 'recurring[interval] must be month or year here.', {
        param: 'recurring[interval]',
      });
    const lookupKey = str(params.lookup_key) ?? null;
    if (lookupKey) {
      const holder = Object.values(this.state.prices).find((p) => p.lookupKey === lookupKey);
      if (holder) {
        if (!bool(params.transfer_lookup_key)) {
          throw new StripeApiError(400, `A price (\`${holder.id}\`) already uses that lookup key.`, {
            param: 'lookup_key',
          });
        }
        holder.lookupKey = null;
      }
    }
    const id = this.newId('price');
    this.state.prices[id] = {
      id,
      product,
      unitAmount,
      currency,
      interval,
      lookupKey,
      nickname: str(params.nickname) ?? null,
      active: true,
      metadata: stringMap(params.metadata),
      created: this.nowSeconds(),
    };
    return this.render.price(this.state.prices[id] as never);
  }

  private updatePrice(id: string, params: FormObject) {
    const price = this.state.prices[id] ?? this.fail(missing('price', id));
    if (bool(params.active) !== undefined) price.active = bool(params.active) ?? price.active;
    price.metadata = { ...price.metadata, ...stringMap(params.metadata) };
    return this.render.price(price);
  }

  private listPrices(params: FormObject) {
    const lookupKeys = list(params.lookup_keys).map((v) => str(v));
    const active = bool(params.active);
    return this.list(
      Object.values(this.state.prices)
        .filter(
          (p) =>
            (lookupKeys.length === 0 || (p.lookupKey !== null && lookupKeys.includes(p.lookupKey))) &&
            (active === undefined || p.active === active) &&
            (!str(params.product) || p.product === str(params.product)),
        )
        .map((p) => this.render.price(p)),
      '/v1/prices',
    );
  }

  private createCoupon(params: FormObject) {
    const percentOff = str(params.percent_off) === undefined ? null : Number(str(params.percent_off));
    const amountOff = int(params.amount_off) ?? null;
    if ((percentOff === null) === (amountOff === null))
      throw new StripeApiError(400, 'Provide exactly one of percent_off or amount_off.', {
        param: 'percent_off',
      });
    const duration = str(params.duration) ?? 'once';
    if (duration !== 'once' && duration !== 'repeating' && duration !== 'forever')
      throw new StripeApiError(400, 'Invalid duration.', { param: 'duration' });
    const durationInMonths = int(params.duration_in_months) ?? null;
    if (duration === 'repeating' && !durationInMonths)
      throw new StripeApiError(400, 'duration_in_months is required for a repeating coupon.', {
        param: 'duration_in_months',
      });
    const id = str(params.id) ?? this.newId('coupon').slice(7, 15);
    if (this.state.coupons[id])
      throw new StripeApiError(400, 'Coupon already exists.', {
        code: 'resource_already_exists',
        param: 'id',
      });
    this.state.coupons[id] = {
      id,
      name: str(params.name) ?? null,
      percentOff,
      amountOff,
      currency: str(params.currency) ?? (amountOff ? 'usd' : null),
      duration,
      durationInMonths,
      created: this.nowSeconds(),
      timesRedeemed: 0,
    };
    return this.render.coupon(this.state.coupons[id] as never);
  }

  private createPromotionCode(params: FormObject) {
    const coupon = str(obj(params.promotion).coupon) ?? str(params.coupon);
    if (!coupon || !this.state.coupons[coupon]) throw missing('coupon', coupon ?? '', 'promotion[coupon]');
    const code = str(params.code) ?? randomBytes(4).toString('hex').toUpperCase();
    if (
      Object.values(this.state.promotionCodes).some(
        (p) => p.active && p.code.toLowerCase() === code.toLowerCase(),
      )
    ) {
      throw new StripeApiError(400, 'An active promotion code with this code already exists.', {
        param: 'code',
      });
    }
    const id = this.newId('promo');
    this.state.promotionCodes[id] = {
      id,
      code,
      coupon,
      active: bool(params.active) ?? true,
      maxRedemptions: int(params.max_redemptions) ?? null,
      timesRedeemed: 0,
      created: this.nowSeconds(),
      metadata: stringMap(params.metadata),
    };
    return this.render.promotionCode(this.state.promotionCodes[id] as never);
  }

  private createCheckoutSession(params: FormObject) {
    if (str(params.mode) !== 'subscription')
      throw new StripeApiError(400, 'Only mode=subscription is emulated.', { param: 'mode' });
    const successUrl = str(params.success_url);
    if (!successUrl)
      throw new StripeApiError(400, 'Missing required param: success_url.', { param: 'success_url' });
    const customerId = str(params.customer);
    if (!customerId)
      throw new StripeApiError(400, 'The emulator needs an existing customer (customer).', {
        param: 'customer',
      });
    const customer =
      this.state.customers[customerId] ?? this.fail(missing('customer', customerId, 'customer'));
    const lineItems: LineItem[] = list(params.line_items).map((raw, index) => {
      const item = obj(raw as FormValue);
      const price = str(item.price);
      if (!price || !this.state.prices[price])
        throw missing('price', price ?? '', `line_items[${index}][price]`);
      if (!this.state.prices[price]?.active)
        throw new StripeApiError(400, `The price specified is inactive.`, {
          param: `line_items[${index}][price]`,
        });
      return { price, quantity: int(item.quantity) ?? 1 };
    });
    if (lineItems.length === 0)
      throw new StripeApiError(400, 'Missing required param: line_items.', { param: 'line_items' });
    const prices = new Set<string>();
    for (const item of lineItems) {
      if (prices.has(item.price))
        throw new StripeApiError(
          400,
          `You cannot use the same price (${item.price}) more than once in line_items.`,
          { param: 'line_items' },
        );
      prices.add(item.price);
    }
    const allowPromotionCodes = bool(params.allow_promotion_codes) ?? false;
    const discounts = list(params.discounts).map((raw) => obj(raw as FormValue));
    if (allowPromotionCodes && discounts.length > 0) {
      throw new StripeApiError(
        400,
        'You may only specify one of these parameters: allow_promotion_codes, discounts.',
        { param: 'discounts' },
      );
    }
    const automaticTax = bool(obj(params.automatic_tax).enabled) ?? false;
    if (automaticTax && !customer.hasAddress && str(obj(params.customer_update).address) !== 'auto') {
      throw new StripeApiError(
        400,
        "Automatic tax calculation in Checkout requires a valid address on the Customer. Add a valid address to the Customer or set either 'customer_update[address]' to 'auto' or 'customer_update[shipping]' to 'auto' to save the address entered in Checkout to the Customer.",
        { param: 'customer_update[address]' },
      );
    }
    const collection = str(params.payment_method_collection) ?? 'always';
    if (collection !== 'always' && collection !== 'if_required')
      throw new StripeApiError(400, 'Invalid payment_method_collection.', {
        param: 'payment_method_collection',
      });
    const now = this.nowSeconds();
    const expiresAt = int(params.expires_at) ?? now + 24 * 3600;
    if (expiresAt < now + 30 * 60 - 5 || expiresAt > now + 24 * 3600) {
      throw new StripeApiError(
        400,
        'The Checkout Session expires_at must be between 30 minutes and 24 hours from now.',
        { param: 'expires_at' },
      );
    }
    let discount: AppliedDiscount | null = null;
    const [firstDiscount] = discounts;
    if (firstDiscount) {
      const promotionCode = str(firstDiscount.promotion_code);
      const coupon = str(firstDiscount.coupon);
      if (promotionCode) {
        const promotion =
          this.state.promotionCodes[promotionCode] ??
          this.fail(missing('promotion_code', promotionCode, 'discounts[0][promotion_code]'));
        discount = { coupon: promotion.coupon, promotionCode };
      } else if (coupon) {
        if (!this.state.coupons[coupon]) throw missing('coupon', coupon, 'discounts[0][coupon]');
        discount = { coupon, promotionCode: null };
      }
    }
    const id = `cs_test_${randomBytes(24).toString('base64url').replace(/[-_]/g, 'a')}`;
    const session: CheckoutSessionRecord = {
      id,
      customer: customerId,
      mode: 'subscription',
      lineItems,
      allowPromotionCodes,
      discount,
      clientReferenceId: str(params.client_reference_id) ?? null,
      subscriptionMetadata: stringMap(obj(params.subscription_data).metadata),
      metadata: stringMap(params.metadata),
      successUrl,
      cancelUrl: str(params.cancel_url) ?? null,
      expiresAt,
      status: 'open',
      paymentStatus: 'unpaid',
      subscription: null,
      invoice: null,
      automaticTax,
      created: now,
    };
    this.state.checkoutSessions[id] = session;
    return this.render.checkoutSession(session, this.sessionAmounts(session));
  }

  private createPortalConfiguration(params: FormObject) {
    const features = obj(params.features);
    const id = this.newId('bpc');
    const cancel = obj(features.subscription_cancel);
    const mode = str(cancel.mode) ?? 'at_period_end';
    if (mode !== 'immediately' && mode !== 'at_period_end')
      throw new StripeApiError(400, 'Invalid subscription_cancel mode.', {
        param: 'features[subscription_cancel][mode]',
      });
    this.state.portalConfigurations[id] = {
      id,
      paymentMethodUpdate: bool(obj(features.payment_method_update).enabled) ?? false,
      subscriptionCancel: bool(cancel.enabled) ?? false,
      cancelMode: mode,
      subscriptionUpdate: bool(obj(features.subscription_update).enabled) ?? false,
      invoiceHistory: bool(obj(features.invoice_history).enabled) ?? false,
      defaultReturnUrl: str(params.default_return_url) ?? null,
      metadata: stringMap(params.metadata),
      isDefault: Object.keys(this.state.portalConfigurations).length === 0,
      created: this.nowSeconds(),
    };
    return this.render.portalConfiguration(this.state.portalConfigurations[id] as never);
  }

  private updatePortalConfiguration(id: string, params: FormObject) {
    const configuration =
      this.state.portalConfigurations[id] ?? this.fail(missing('billing_portal.configuration', id));
    const features = obj(params.features);
    const cancel = obj(features.subscription_cancel);
    const mode = str(cancel.mode);
    if (mode !== undefined && mode !== 'immediately' && mode !== 'at_period_end')
      throw new StripeApiError(400, 'Invalid subscription_cancel mode.', {
        param: 'features[subscription_cancel][mode]',
      });
    configuration.paymentMethodUpdate =
      bool(obj(features.payment_method_update).enabled) ?? configuration.paymentMethodUpdate;
    configuration.subscriptionCancel = bool(cancel.enabled) ?? configuration.subscriptionCancel;
    configuration.cancelMode = mode ?? configuration.cancelMode;
    configuration.subscriptionUpdate =
      bool(obj(features.subscription_update).enabled) ?? configuration.subscriptionUpdate;
    configuration.invoiceHistory =
      bool(obj(features.invoice_history).enabled) ?? configuration.invoiceHistory;
    configuration.metadata = { ...configuration.metadata, ...stringMap(params.metadata) };
    return this.render.portalConfiguration(configuration);
  }

  private createPortalSession(params: FormObject) {
    const customer = str(params.customer);
    if (!customer || !this.state.customers[customer]) throw missing('customer', customer ?? '', 'customer');
    const configuration =
      str(params.configuration) ??
      Object.values(this.state.portalConfigurations).find((c) => c.isDefault)?.id;
    if (!configuration || !this.state.portalConfigurations[configuration])
      throw missing('billing_portal.configuration', configuration ?? '', 'configuration');
    const id = this.newId('bps');
    this.state.portalSessions[id] = {
      id,
      customer,
      configuration,
      returnUrl:
        str(params.return_url) ?? this.state.portalConfigurations[configuration]?.defaultReturnUrl ?? null,
      created: this.nowSeconds(),
    };
    return this.render.portalSession(this.state.portalSessions[id] as never);
  }

  private updateSubscription(id: string, params: FormObject) {
    const subscription = this.state.subscriptions[id] ?? this.fail(missing('subscription', id));
    if (subscription.status === 'canceled')
      throw new StripeApiError(
        400,
        'A canceled subscription can only update its cancellation_details and metadata.',
      );
    const previous = this.render.subscription(subscription);
    const requested = list(params.items).map((raw) => obj(raw as FormValue));
    if (requested.length > 0) {
      const next = subscription.items.map((item) => ({ ...item }));
      for (const [index, change] of requested.entries()) {
        const itemId = str(change.id);
        const price = str(change.price);
        if (price && !this.state.prices[price]) throw missing('price', price, `items[${index}][price]`);
        const existing = itemId ? next.find((item) => item.id === itemId) : undefined;
        if (itemId && !existing) throw missing('subscription_item', itemId, `items[${index}][id]`);
        if (existing && bool(change.deleted)) {
          next.splice(next.indexOf(existing), 1);
          continue;
        }
        if (existing) {
          // A price swap without a quantity resets the quantity to 1, as Stripe does.
          if (price && price !== existing.price) existing.quantity = int(change.quantity) ?? 1;
          else existing.quantity = int(change.quantity) ?? existing.quantity;
          existing.price = price ?? existing.price;
        } else {
          if (!price)
            throw new StripeApiError(400, 'Missing required param: items[][price].', {
              param: `items[${index}][price]`,
            });
          next.push({
            id: this.newId('si'),
            price,
            quantity: int(change.quantity) ?? 1,
            created: this.nowSeconds(),
          });
        }
      }
      const seen = new Set<string>();
      for (const item of next) {
        if (seen.has(item.price)) {
          throw new StripeApiError(
            400,
            `Cannot add multiple subscription items with the same price: ${item.price}`,
            { param: 'items' },
          );
        }
        seen.add(item.price);
      }
      subscription.items = next;
    }
    if (bool(params.cancel_at_period_end) !== undefined) {
      subscription.cancelAtPeriodEnd = bool(params.cancel_at_period_end) ?? false;
      subscription.cancelAt = subscription.cancelAtPeriodEnd ? subscription.currentPeriodEnd : null;
    }
    subscription.metadata = { ...subscription.metadata, ...stringMap(params.metadata) };
    this.emit('customer.subscription.updated', this.render.subscription(subscription), {
      items: previous.items,
    });
    return this.render.subscription(subscription);
  }

  private cancelSubscription(id: string, params: FormObject) {
    const subscription = this.state.subscriptions[id] ?? this.fail(missing('subscription', id));
    if (subscription.status === 'canceled')
      throw new StripeApiError(400, `This subscription is already canceled.`, { code: 'resource_missing' });
    // Proration on cancel is not emulated: we cancel with prorate=false, invoice_now=false (refunds).
    for (const flag of ['prorate', 'invoice_now'] as const) {
      if (bool(params[flag]))
        throw new StripeApiError(
          400,
          `${flag}=true is not emulated; this project cancels with ${flag}=false.`,
          { param: flag },
        );
    }
    subscription.canceledAt = this.nowSeconds();
    subscription.cancellationReason = 'cancellation_requested';
    subscription.cancellationComment = str(obj(params.cancellation_details).comment) ?? null;
    this.endSubscription(subscription, this.nowSeconds());
    return this.render.subscription(subscription);
  }

  private createRefund(params: FormObject) {
    const intentId = str(params.payment_intent);
    if (!intentId)
      throw new StripeApiError(400, 'Missing required param: payment_intent.', { param: 'payment_intent' });
    const intent =
      this.state.paymentIntents[intentId] ?? this.fail(missing('payment_intent', intentId, 'payment_intent'));
    if (intent.status !== 'succeeded')
      throw new StripeApiError(400, 'This PaymentIntent has no successful charge to refund.', {
        code: 'charge_not_refundable',
      });
    const remaining = intent.amount - intent.amountRefunded;
    const amount = int(params.amount) ?? remaining;
    if (amount <= 0 || amount > remaining) {
      throw new StripeApiError(
        400,
        `Refund amount ($${(amount / 100).toFixed(2)}) is greater than unrefunded amount on charge ($${(remaining / 100).toFixed(2)})`,
        { code: 'charge_already_refunded', param: 'amount' },
      );
    }
    intent.amountRefunded += amount;
    const id = this.newId('re');
    this.state.refunds[id] = {
      id,
      amount,
      paymentIntent: intentId,
      status: 'succeeded',
      reason: str(params.reason) ?? null,
      metadata: stringMap(params.metadata),
      created: this.nowSeconds(),
    };
    const refund = this.render.refund(this.state.refunds[id] as never);
    this.emit('refund.created', refund);
    return refund;
  }
}
