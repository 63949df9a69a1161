import { config } from './config.ts';
import { secretValue } from './secrets.ts';

/**
 * A sliding-window rate limiter: at most `perSecond` calls start in any window of one second.
 * Callers wait their turn in order. The waiting uses real timers (pacing requests to a remote
 * API is not business time, so the Clock port is not involved); tests inject `now` and `sleep`.
 */
export class RateLimiter {
  readonly perSecond: number;
  /** Calls let through so far (for the bench and the operators' figures). */
  calls = 0;
  /** Told the start time (on the limiter's `now`) of every call let through; the bench sets it. */
  observer: ((startedAt: number) => void) | undefined;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  /** Start times of the calls of the last second, oldest first. */
  private readonly starts: number[] = [];
  private queue: Promise<void> = Promise.resolve();

  constructor(options: {
    perSecond: number;
    now?: () => number;
    sleep?: (ms: number) => Promise<void>;
  }) {
    if (!Number.isInteger(options.perSecond) || options.perSecond < 1)
      throw new Error(`a rate limit must be a whole number of calls per second, not ${options.perSecond}`);
    this.perSecond = options.perSecond;
    this.now = options.now ?? (() => performance.now());
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /** Resolves when one more call may start without exceeding the limit; counts that call. */
  acquire(): Promise<void> {
    const turn = this.queue.then(() => this.waitForSlot());
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  private async waitForSlot(): Promise<void> {
    for (;;) {
      const now = this.now();
      // A start at or before now − 1 s is outside every window that contains now.
      while (this.starts.length > 0 && (this.starts[0] ?? 0) <= now - 1000) this.starts.shift();
      if (this.starts.length < this.perSecond) {
        this.starts.push(now);
        this.calls++;
        this.observer?.(now);
        return;
      }
      await this.sleep((this.starts[0] ?? now) + 1000 - now);
    }
  }
}

/** Stripe's documented per-account limits: test mode and live mode (requests per second). */
export const PROCESSOR_RATE_LIMITS = { test: 25, live: 100 } as const;

/**
 * The processor calls per second this deployment allows itself: the live-mode limit for a live
 * key (`sk_live_…`), else the test-mode one; `PROCESSOR_RATE_LIMIT_PER_SECOND` overrides both.
 */
export const processorCallsPerSecond = (apiKey: string, override: string | undefined): number => {
  if (override !== undefined && override !== '') {
    const value = Number(override);
    if (!Number.isInteger(value) || value < 1)
      throw new Error(`PROCESSOR_RATE_LIMIT_PER_SECOND must be a whole number above 0, not "${override}"`);
    return value;
  }
  return apiKey.startsWith('sk_live_') ? PROCESSOR_RATE_LIMITS.live : PROCESSOR_RATE_LIMITS.test;
};

let processorLimiter: Promise<RateLimiter> | undefined;

/** The limiter every processor call of this process goes through (its limit from the API key). */
export const processorRateLimit = async (): Promise<RateLimiter> => {
  processorLimiter ??= secretValue('PROCESSOR_API_KEY').then(
    (apiKey) =>
      new RateLimiter({
        perSecond: processorCallsPerSecond(apiKey, config.processorRateLimitPerSecond()),
      }),
  );
  // A key that could not be read is not remembered: the next call tries again.
  return processorLimiter.catch((error: unknown) => {
    processorLimiter = undefined;
    throw error;
  });
};

/** Waits until one more processor call may start (the single use: `call` in processor/client.ts). */
export const awaitProcessorTurn = async (): Promise<void> => (await processorRateLimit()).acquire();
