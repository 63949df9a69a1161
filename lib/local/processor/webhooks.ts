import { createHmac } from 'node:crypto';

/**
 * Webhook delivery: events signed as Stripe signs them, delivered one at a time in order,
 * retried 3 times with backoff on failure.
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

  constructor(nowSeconds: () => number, target?: WebhookTarget) {
    this.nowSeconds = nowSeconds;
    this.target = target;
  }

  /** Queues `payload` (an event's JSON) behind every event queued before it. */
  enqueue(id: string, type: string, payload: string): void {
    this.chain = this.chain.then(() => this.deliver(id, type, payload));
  }

  private async deliver(id: string, type: string, payload: string): Promise<void> {
    const target = this.target;
    if (!target) return;
    for (let attempt = 0; attempt < 4; attempt++) {
      try {
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
        if (response.ok) return;
      } catch {
        this.delivered.push({ id, type, status: 0 });
      }
      await new Promise((resolve) => setTimeout(resolve, 200 * 4 ** attempt));
    }
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
