import { runSweep, type SweepSummary } from '../../functions/reconciler/sweep.ts';

/**
 * The local stand-in for the reconciler's schedule and its reserved concurrency of 1: runs never
 * overlap; a nudge during a run asks for one more run right after it.
 */
export class LocalSweeper {
  private running: Promise<SweepSummary> | undefined;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly budgetMs: number;
  last: SweepSummary | undefined;

  constructor(budgetMs = 50_000) {
    this.budgetMs = budgetMs;
  }

  /** Runs one sweep now (after the current one, if any) and answers its summary. */
  async runNow(): Promise<SweepSummary> {
    while (this.running) await this.running.catch(() => undefined);
    this.running = runSweep(this.budgetMs).finally(() => {
      this.running = undefined;
    });
    this.last = await this.running;
    return this.last;
  }

  /** Asks for a sweep without waiting: now if idle, else once more after the running one. */
  nudge(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    void this.runNow()
      .catch((error: unknown) => console.error('local sweep failed', error))
      .then(() => {
        if (this.again) {
          this.again = false;
          this.nudge();
        }
      });
  }

  /** The EventBridge schedule's stand-in. */
  startTicker(everySeconds: number): void {
    this.timer = setInterval(() => this.nudge(), everySeconds * 1000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    while (this.running) await this.running.catch(() => undefined);
  }
}
