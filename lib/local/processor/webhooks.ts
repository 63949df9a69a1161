import { createHmac } from 'node:crypto';

/**
 * Webhook delivery: events signed as Stripe signs them, delivered one at a time in order,
 * retried 3 times with backoff on failure. The emulator keeps the ids of events not yet delivered
 * in its state, so a kill does not lose them (see ProcessorEmulator.emit and setWebhook).
 */

export interface WebhookTarget {
  url: string;
  secret: string;
}

export interface DeliveredEvent {
  id: string;
  type: string;
  status: number;
}

/** Stripe-Signature: `t=<timestamp>,v1=<HMAC-SHA256 of "t.payload" with the endpoint secret>`. */
export const webhookSignature = (payload: string, secret: string, timestamp: number): string => {
  const v1 = createHmac('sha256', secret).update(`${timestamp}.${payload}`).digest('hex');
  return `t=${timestamp},v1=${v1}`;
};

export class WebhookQueue {
  /** Every delivery attempt and its HTTP status (0: no answer). */
  readonly delivered: DeliveredEvent[] = [];
  target: WebhookTarget | undefined;
  private readonly nowSeconds: () => number;
  private chain: Promise<void> = Promise.resolve();
  /** Told when an event's delivery is over: answered 2xx, or given up after the last attempt. */
  private readonly settled: (id: string) => void;
  /** Events queued in this process and not settled yet. */
  private readonly queued = new Set<string>();
  /**
   * Called before each delivery attempt: the emulator writes its state, so the write that emitted
   * the event is on disk before anyone hears of it (a real processor commits, then notifies).
   */
  private readonly beforeSend: () => void;

  constructor(
    nowSeconds: () => number,
    target?: WebhookTarget,
    settled: (id: string) => void = () => undefined,
    beforeSend: () => void = () => undefined,
  ) {
    this.nowSeconds = nowSeconds;
    this.target = target;
    this.settled = settled;
    this.beforeSend = beforeSend;
  }

  /** Queues `payload` (an event's JSON) behind every event queued before it (once while queued). */
  enqueue(id: string, type: string, payload: string): void {
    if (this.queued.has(id)) return;
    this.queued.add(id);
    this.chain = this.chain.then(async () => {
      try {
        if (await this.deliver(id, type, payload)) this.settled(id);
      } finally {
        this.queued.delete(id);
      }
    });
  }

  /** Delivers one event; false when there was nowhere to deliver it (it stays pending). */
  private async deliver(id: string, type: string, payload: string): Promise<boolean> {
    const target = this.target;
    if (!target) return false;
    for (let attempt = 0; attempt < 4; attempt++) {
      try {
        this.beforeSend();
        const timestamp = this.nowSeconds();
        const response = await fetch(target.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json; charset=utf-8',
            'stripe-signature': webhookSignature(payload, target.secret, timestamp),
            'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
          },
          body: payload,
          signal: AbortSignal.timeout(10_000),
        });
        await response.arrayBuffer();
        this.delivered.push({ id, type, status: response.status });
        if (response.ok) return true;
      } catch {
        this.delivered.push({ id, type, status: 0 });
      }
      await new Promise((resolve) => setTimeout(resolve, 200 * 4 ** attempt));
    }
    return true;
  }

  /** Resolves once every event queued so far has been delivered (or given up). */
  async flush(): Promise<void> {
    let chain: Promise<void>;
    do {
      chain = this.chain;
      await chain;
    } while (chain !== this.chain);
  }
}
