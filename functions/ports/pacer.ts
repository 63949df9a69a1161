/**
 * Pacing calls to a remote API that limits this process alone (the SES send rate): the account-wide
 * processor budget is functions/ports/rate-limit.ts.
 */
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
