import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { FaultBoard } from '../faults.ts';
import { DEFAULT_TAX_RATES, type TaxRates } from './billing.ts';
import * as checkout from './checkout.ts';
import type { EmulatorContext } from './context.ts';
import { EMULATED_API_VERSION } from './errors.ts';
import type { FormObject } from './form.ts';
import { HttpFront, type ProcessorFault, type RecordedCall } from './http.ts';
import { type PageResult, renderPage } from './pages.ts';
import * as portal from './portal.ts';
import { Renderer } from './render.ts';
import { route } from './router.ts';
import { type SubscriberSeed, seedSubscribers, subscribeCustomer } from './seed.ts';
import type { CheckoutSessionRecord, ProcessorState, SubscriptionRecord } from './state.ts';
import { emptyState } from './state.ts';
import { nextDueAt, renewDue } from './subscriptions.ts';
import { type DeliveredEvent, WebhookQueue, type WebhookTarget, webhookSignature } from './webhooks.ts';

/**
 * A local stand-in for the payment processor: the subset of Stripe's REST API this project calls,
 * its hosted Checkout and Billing Portal pages, renewals as the shared clock passes period ends,
 * and signed webhooks. This class is the facade over the parts:
 *
 * - http.ts: the HTTP server, request parsing, API key, idempotency, request log, latency;
 * - router.ts and the resources: catalog.ts (customers, products, prices, coupons, promotion
 *   codes), checkout.ts, portal.ts, subscriptions.ts (updates, prorations, cancels, renewals),
 *   invoices.ts (composing, charging, balance, invoice items), preview.ts (invoice previews),
 *   payments.ts (payment intents, refunds);
 * - billing.ts: the pure invoice and proration arithmetic;
 * - webhooks.ts: signing, queueing and delivery of events;
 * - pages.ts: the hosted pages; render.ts/shapes.ts: Stripe's object shapes.
 */

export { EMULATED_API_VERSION, StripeApiError } from './errors.ts';
export type { ProcessorFault, RecordedCall } from './http.ts';
export type { SubscriberSeed } from './seed.ts';
export type { DeliveredEvent, WebhookTarget } from './webhooks.ts';

export interface EmulatorOptions {
  now: () => Date;
  /** Where the state is kept across restarts; in memory when absent. */
  stateFile?: string;
  webhook?: WebhookTarget;
  /** Automatic-tax rates (percent) by customer country; DEFAULT_TAX_RATES when absent. */
  taxRates?: TaxRates;
}

/** How long the processor keeps an event (Stripe: 30 days). */
const EVENT_RETENTION_SECONDS = 30 * 86_400;

export class ProcessorEmulator implements EmulatorContext {
  state: ProcessorState;
  readonly render: Renderer;
  readonly taxRates: TaxRates;
  private readonly options: EmulatorOptions;
  private readonly webhooks: WebhookQueue;
  private readonly http: HttpFront;
  private saveTimer: NodeJS.Timeout | undefined;
  /** An event was emitted since the state was last written. */
  private eventsUnsaved = false;
  /** What the last tick saw: the id sequence then, and the earliest time anything comes due after it. */
  private quiet: { sequence: number; until: number } | undefined;

  constructor(options: EmulatorOptions) {
    this.options = options;
    this.taxRates = options.taxRates ?? DEFAULT_TAX_RATES;
    this.state =
      options.stateFile && existsSync(options.stateFile)
        ? (JSON.parse(readFileSync(options.stateFile, 'utf8')) as ProcessorState)
        : emptyState();
    this.render = new Renderer(
      () => this.state,
      () => this.http.url,
    );
    this.webhooks = new WebhookQueue(
      () => this.nowSeconds(),
      options.webhook,
      (id) => {
        this.state.pendingWebhooks = (this.state.pendingWebhooks ?? []).filter((pending) => pending !== id);
        this.save();
      },
      // A kill right after a delivery must not leave our intake an event whose write (a payment,
      // a subscription) the processor then forgets: the state goes to disk before a delivery
      // when an event was emitted since the last write (once for a burst: a renewal of many
      // subscriptions writes once, not once per event, which on a large state took seconds).
      () => {
        if (this.eventsUnsaved) this.saveNow();
      },
    );
    this.deliverPending();
    this.http = new HttpFront({
      tick: () => this.tick(),
      tickBeforeRead: () => this.tickBeforeRead(),
      route: (method, pathname, params) => this.route(method, pathname, params),
      page: (method, pathname, form) => this.page(method, pathname, form),
      idempotency: () => this.state.idempotency,
      nowSeconds: () => this.nowSeconds(),
      save: () => this.save(),
      saveBeforeAnswer: () => this.saveBeforeAnswer(),
    });
  }

  /** Every webhook delivery attempt and its status. */
  get delivered(): DeliveredEvent[] {
    return this.webhooks.delivered;
  }

  /**
   * Every API request received, in order (kept in memory only): what the control plane asked of
   * the processor, so tests can check our calls and their idempotency keys, not only the outcome.
   */
  get calls(): RecordedCall[] {
    return this.http.calls;
  }

  /** Delay before every API answer, to try timeouts and deadlines (0 by default). */
  get latencyMs(): number {
    return this.http.latencyMs;
  }

  set latencyMs(value: number) {
    this.http.latencyMs = value;
  }

  /** API and page requests received and not answered yet. */
  get requestsInFlight(): number {
    return this.http.inFlight;
  }

  /** Faults on the API, for tests (see ProcessorFault): push one, or empty the list to clear them. */
  get faults(): ProcessorFault[] {
    return this.http.faults;
  }

  /** Puts the local cloud's fault board (faults on demand) in front of the API. */
  useFaultBoard(board: FaultBoard): void {
    this.http.board = board;
  }

  get url(): string {
    return this.http.url;
  }

  /**
   * Where webhooks go; `undefined` keeps events without delivering them. Events left undelivered
   * by an earlier process on the same state (killed while they were queued or being retried) are
   * delivered once there is somewhere to deliver them.
   */
  setWebhook(target: WebhookTarget | undefined): void {
    this.webhooks.target = target;
    this.deliverPending();
  }

  /** Queues every pending event (not delivered yet) again, oldest first. */
  private deliverPending(): void {
    if (!this.webhooks.target) return;
    for (const id of this.state.pendingWebhooks ?? []) {
      const event = this.state.events[id] as { type?: string } | undefined;
      if (event) this.webhooks.enqueue(id, event.type ?? '', JSON.stringify(event, null, 2));
    }
  }

  nowSeconds(): number {
    return Math.floor(this.options.now().getTime() / 1000);
  }

  newId(prefix: string): string {
    this.state.sequence += 1;
    return `${prefix}_${randomBytes(9).toString('base64url').replace(/[-_]/g, 'x')}${this.state.sequence.toString(36)}`;
  }

  /** Keeps the state file current without rewriting it on every request (at most every 250 ms). */
  save(): void {
    if (!this.options.stateFile || this.saveTimer) return;
    this.saveTimer = setTimeout(() => this.saveNow(), 250);
    this.saveTimer.unref();
  }

  /**
   * Writes a pending save at once (something changed since the last write). The HTTP front calls
   * it before answering, so a write the emulator answered is on disk even if the process is killed
   * (SIGKILL) the next instant, as a real processor's answered write is never lost.
   */
  saveBeforeAnswer(): void {
    if (this.saveTimer) this.saveNow();
  }

  /** Writes the whole state, to a temporary file renamed over the old: a kill mid-write leaves the old one whole. */
  private saveNow(): void {
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    this.eventsUnsaved = false;
    if (!this.options.stateFile) return;
    this.dropOldEvents();
    mkdirSync(path.dirname(this.options.stateFile), { recursive: true });
    const partial = `${this.options.stateFile}.${process.pid}.tmp`;
    writeFileSync(partial, JSON.stringify(this.state));
    renameSync(partial, this.options.stateFile);
  }

  /**
   * Events are kept 30 days, as the processor keeps them (never one still to be delivered). The
   * emulator lists no events, so nothing reads an older one; kept forever they were 96% of the
   * state a long e2e run writes (10 MB on the shared server, written before each burst of webhooks).
   */
  private dropOldEvents(): void {
    const oldest = this.nowSeconds() - EVENT_RETENTION_SECONDS;
    const pending = new Set(this.state.pendingWebhooks ?? []);
    for (const [id, event] of Object.entries(this.state.events))
      if (((event as { created?: number }).created ?? oldest) < oldest && !pending.has(id))
        delete this.state.events[id];
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
      pending_webhooks: this.webhooks.target ? 1 : 0,
      request: { id: null, idempotency_key: null },
      type,
    };
    this.state.events[id] = event;
    this.eventsUnsaved = true;
    if (!this.webhooks.target) return;
    // Kept as pending until delivered (saved with the write that emitted it), so a kill before
    // the delivery does not lose it.
    this.state.pendingWebhooks = [...(this.state.pendingWebhooks ?? []), id];
    this.webhooks.enqueue(id, type, JSON.stringify(event, null, 2));
  }

  /** Stripe-Signature: `t=<timestamp>,v1=<HMAC-SHA256 of "t.payload" with the endpoint secret>`. */
  static signature(payload: string, secret: string, timestamp: number): string {
    return webhookSignature(payload, secret, timestamp);
  }

  /** Resolves once every event emitted so far has been delivered (or given up). */
  flushWebhooks(): Promise<void> {
    return this.webhooks.flush();
  }

  // ---- what the hosted pages do ----

  sessionAmounts(session: CheckoutSessionRecord) {
    return checkout.sessionAmounts(this, session);
  }

  /** What the hosted Checkout page does when the customer pays (`country`: the address typed). */
  payCheckout(sessionId: string, cardNumber: string, country?: string) {
    return checkout.payCheckout(this, sessionId, cardNumber, country);
  }

  /** Applies a promotion code typed on the Checkout page. */
  applyPromotionCode(sessionId: string, code: string): string | undefined {
    return checkout.applyPromotionCode(this, sessionId, code);
  }

  /** The session if it can still be paid; expires it when its time has passed. */
  openSession(sessionId: string): CheckoutSessionRecord {
    return checkout.openSession(this, sessionId);
  }

  /** The portal's "update payment method": a new default card, then open invoices are retried. */
  updatePaymentMethod(customerId: string, cardNumber: string): string | undefined {
    return portal.updatePaymentMethod(this, customerId, cardNumber);
  }

  /** The portal's "cancel subscription", in the configuration's mode. */
  cancelFromPortal(customerId: string, configurationId: string): void {
    portal.cancelFromPortal(this, customerId, configurationId);
  }

  page(method: string, pathname: string, form: FormObject): PageResult {
    return renderPage(this, method, pathname, form);
  }

  /** Bulk seeding for benches: customers subscribed long ago, with no events (seed.ts). */
  seedSubscribers(seeds: readonly SubscriberSeed[]): { customerId: string; subscriptionId: string }[] {
    const seeded = seedSubscribers(this, seeds);
    this.save();
    return seeded;
  }

  /**
   * For tests: a subscription of an existing customer in any status (`trialing`, `incomplete`,
   * `past_due`, `unpaid`...), made without a Checkout and without events (seed.ts). Its id.
   */
  subscribeCustomer(customer: string, price: string, status: SubscriptionRecord['status']): string {
    const { id } = subscribeCustomer(this, { customer, price, status });
    this.save();
    return id;
  }

  // ---- the clock ----

  /** Bills every subscription whose period ended by now; expires Checkout Sessions past due. */
  tick(): void {
    checkout.expireDue(this);
    renewDue(this);
    this.quiet = { sequence: this.state.sequence, until: nextDueAt(this.state) };
    this.save();
  }

  /**
   * The tick before an API read: skipped while nothing was created since the last tick (the id
   * sequence has not moved) and nothing it saw comes due before now. A full tick walks every
   * subscription and session: at 10,000 subscriptions that was most of a read's time (the scale
   * bench, issue 23).
   */
  tickBeforeRead(): void {
    if (this.quiet && this.quiet.sequence === this.state.sequence && this.nowSeconds() < this.quiet.until)
      return;
    this.tick();
  }

  // ---- HTTP ----

  start(port = 0): Promise<string> {
    return this.http.start(port);
  }

  async stop(): Promise<void> {
    await this.flushWebhooks();
    this.saveNow();
    await this.http.stop();
  }

  /** The REST API subset (see docs/decisions.md for what is emulated). */
  route(method: string, pathname: string, params: FormObject): unknown {
    return route(this, method, pathname, params);
  }
}
