import { AsyncLocalStorage } from 'node:async_hooks';
import { claimProcessorPlace } from '#store/processor-budget.ts';
import { config } from './config.ts';
import { secretValue } from './secrets.ts';

/** Stripe's documented per-account limits: test mode and live mode (requests per second). */
export const PROCESSOR_RATE_LIMITS = { test: 25, live: 100 } as const;

/**
 * The processor calls per second the account allows, shared by every caller of the deployment: the live-mode limit for a live
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

/**
 * Who spends the account's budget: the sweep (reconciliation and what it starts) or anyone else
 * (API handlers, Plan Change tasks, ops commands). The sweep has a fifth of the places of its own,
 * so the others together can never starve it (`placesFor`); the sweep may take every place.
 */
export type ProcessorShare = 'sweep' | 'shared';
/** Slot claims one process has in flight at most (a crowd of claims only slows the table). */
const CLAIMS_IN_FLIGHT = 8;
/**
 * How far ahead of its round trip a share may claim: the sweep 4 windows (about 170 ms), the others
 * 8. A sweep with hundreds of calls queued booked every window for seconds ahead, so a tenant's
 * request behind it waited out its own deadline (a give-up of the chaos run). Now the sweep's
 * bookings end 4 windows ahead and a tenant's call finds a place within 8, past the sweep's: it
 * waits about a third of a second however long the sweep's queue.
 */
export const MAX_WINDOWS_AHEAD: Record<ProcessorShare, number> = { sweep: 4, shared: 8 };

/**
 * How the account's limit of `perSecond` calls is cut (issue 23): about 24 windows a second, each
 * with `places` calls. Any one second overlaps at most `windowsPerSecond + 1` windows, so at most
 * `places x (windowsPerSecond + 1) <= perSecond` calls start in it, whatever the processes; a busy
 * account gets `places x windowsPerSecond` a second (96% of 25 or of 100).
 */
export const budgetShape = (perSecond: number) => {
  const places = Math.max(1, Math.floor(perSecond / 25));
  const windowsPerSecond = Math.floor(perSecond / places) - 1;
  return { places, windowsPerSecond, windowMs: 1000 / windowsPerSecond };
};

/**
 * The places of a window a share may take. The sweep: all. The others: all but a fifth of them
 * (rounded up) where a window has 5 places or more; else all of four windows in five, none of the
 * fifth. Either way a fifth of the account is the sweep's alone.
 */
export const placesFor = (places: number, share: ProcessorShare, window: number): number => {
  if (share === 'sweep') return places;
  if (places >= 5) return places - Math.ceil(places / 5);
  return window % 5 === 0 ? 0 : places;
};

/**
 * ONE processor budget per account, across every process (issue 23). A call may start only inside
 * a window where it took a place in the table (functions/store/processor-budget.ts), where no more
 * than the window's places can be taken; see `budgetShape`. A place won for a window that has
 * passed by the time it is won is dropped, and another taken: a call never starts outside its
 * window. Places are claimed a little ahead (the claim's measured round trip), so that a busy
 * caller's claims land before their windows begin; a lone caller starts at once.
 *
 * The pacing uses wall time shared by every process (`performance.timeOrigin + performance.now()`),
 * not the Clock port: it paces requests to a remote API, which is not business time.
 */
export class AccountBudget {
  readonly perSecond: number;
  readonly windowMs: number;
  readonly places: number;
  /** Calls let through so far by this process (for the bench and the operators' figures). */
  calls = 0;
  /** Claims this process lost (the window was full) or dropped as too late. */
  lost = 0;
  /** Told the start time (ms, the budget's clock) of every call let through; the bench sets it. */
  observer: ((startedAt: number, share: ProcessorShare, window: number) => void) | undefined;
  private readonly claim: (window: number, places: number) => Promise<boolean>;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  /** The first window each share may still find room in, as this process knows. */
  private readonly next: Record<ProcessorShare, number> = { sweep: 0, shared: 0 };
  /** Places this process holds or is claiming, per window (so it does not claim a full window). */
  private readonly mine = new Map<number, number>();
  /** The claim's round trip, smoothed (how far ahead to claim). */
  private claimMs = 0;
  private claiming = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(options: {
    perSecond: number;
    claim: (window: number, places: number) => Promise<boolean>;
    now?: () => number;
    sleep?: (ms: number) => Promise<void>;
  }) {
    if (!Number.isInteger(options.perSecond) || options.perSecond < 2)
      throw new Error(`an account budget needs at least 2 calls per second, not ${options.perSecond}`);
    this.perSecond = options.perSecond;
    const shape = budgetShape(options.perSecond);
    this.windowMs = shape.windowMs;
    this.places = shape.places;
    this.claim = options.claim;
    this.now = options.now ?? (() => performance.timeOrigin + performance.now());
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /** The next window this process may try for this share. */
  private takeWindow(share: ProcessorShare): number {
    const current = Math.floor((this.now() + this.claimMs) / this.windowMs);
    let window = Math.max(this.next[share], current);
    while ((this.mine.get(window) ?? 0) >= placesFor(this.places, share, window)) window++;
    this.next[share] = window;
    this.mine.set(window, (this.mine.get(window) ?? 0) + 1);
    for (const old of this.mine.keys()) if (old < current - 2) this.mine.delete(old);
    return window;
  }

  /** Claims a place, a few claims at a time per process. */
  private async claimNext(share: ProcessorShare): Promise<{ window: number; won: boolean }> {
    if (this.claiming >= CLAIMS_IN_FLIGHT) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.claiming++;
    try {
      const window = this.takeWindow(share);
      // Not more than MAX_WINDOWS_AHEAD windows ahead: wait until the window comes that close.
      const ahead = MAX_WINDOWS_AHEAD[share];
      for (
        let wait = (window - ahead) * this.windowMs - this.claimMs - this.now();
        wait > 0;
        wait = (window - ahead) * this.windowMs - this.claimMs - this.now()
      )
        await this.sleep(Math.ceil(wait));
      const asked = this.now();
      const won = await this.claim(window, placesFor(this.places, share, window));
      this.claimMs = 0.8 * this.claimMs + 0.2 * 1.5 * (this.now() - asked);
      if (!won) {
        // Full for this share: nobody of this process tries it again for it.
        this.mine.set(window, Math.max(this.mine.get(window) ?? 0, placesFor(this.places, share, window)));
        this.next[share] = Math.max(this.next[share], window + 1);
      }
      return { window, won };
    } finally {
      this.claiming--;
      this.waiting.shift()?.();
    }
  }

  /** Resolves when one more processor call may start, inside a window of the account's budget where it took a place. */
  async acquire(share: ProcessorShare = 'shared'): Promise<void> {
    for (;;) {
      const { window, won } = await this.claimNext(share);
      if (!won) {
        this.lost++;
        continue;
      }
      const start = window * this.windowMs;
      // Timers count whole milliseconds and may wake early: wait until the window has begun.
      for (let wait = start - this.now(); wait > 0; wait = start - this.now())
        await this.sleep(Math.ceil(wait));
      const now = this.now();
      if (now >= start + this.windowMs) {
        // Won too late: starting now would be outside the window (and could crowd a second).
        this.lost++;
        continue;
      }
      this.calls++;
      this.observer?.(now, share, window);
      return;
    }
  }
}

const shares = new AsyncLocalStorage<ProcessorShare>();

/** Runs `work` with its processor calls counted to the sweep's share (the sweep's own slots too). */
export const asSweep = <T>(work: () => Promise<T>): Promise<T> => shares.run('sweep', work);

/** The account's budget key: the test and live modes of an account are budgeted apart. */
export const processorAccount = (apiKey: string): 'live' | 'test' =>
  apiKey.startsWith('sk_live_') ? 'live' : 'test';

let processorBudget: Promise<AccountBudget> | undefined;

/** The budget every processor call of this deployment goes through (its limit and account from the API key). */
export const processorRateLimit = async (): Promise<AccountBudget> => {
  processorBudget ??= secretValue('PROCESSOR_API_KEY').then((apiKey) => {
    const account = processorAccount(apiKey);
    return new AccountBudget({
      perSecond: processorCallsPerSecond(apiKey, config.processorRateLimitPerSecond()),
      // Wall time, not business time: a slot item is dropped by TTL a day after its slot.
      claim: (window, places) =>
        claimProcessorPlace(
          account,
          window,
          places,
          Math.floor((performance.timeOrigin + performance.now()) / 1000) + 86_400,
        ),
    });
  });
  // A key that could not be read is not remembered: the next call tries again.
  return processorBudget.catch((error: unknown) => {
    processorBudget = undefined;
    throw error;
  });
};

/** Waits until one more processor call may start (the single use: `call` in processor/client.ts). */
export const awaitProcessorTurn = async (): Promise<void> =>
  (await processorRateLimit()).acquire(shares.getStore() ?? 'shared');
