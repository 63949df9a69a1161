import { clock } from '../../functions/ports/clock.ts';
import { runSweep, type SweepSummary } from '../../functions/reconciler/run-sweep.ts';

const counted = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

/**
 * The one line `npm start` prints for a sweep that changed something (events applied, tenants
 * moved, emails sent or waitlist entries told); `undefined` for an idle sweep, which stays quiet.
 */
export const sweepLine = (summary: SweepSummary, now: Date): string | undefined => {
  const moved = summary.transitions.length;
  const changed =
    summary.intake.applied +
    moved +
    summary.emailsSent +
    summary.waitlistNotified +
    summary.planChangesStarted;
  if (changed === 0) return undefined;
  const parts = [
    counted(summary.intake.applied, 'event applied', 'events applied'),
    counted(moved, 'tenant moved', 'tenants moved') +
      (moved > 0 && moved <= 3
        ? ` (${summary.transitions.map((t) => `${t.from} -> ${t.to}`).join(', ')})`
        : ''),
    counted(summary.emailsSent, 'email sent', 'emails sent'),
  ];
  if (summary.waitlistNotified > 0)
    parts.push(counted(summary.waitlistNotified, 'waitlist entry told', 'waitlist entries told'));
  if (summary.planChangesStarted > 0)
    parts.push(counted(summary.planChangesStarted, 'Plan Change started', 'Plan Changes started'));
  if (summary.failed > 0) parts.push(counted(summary.failed, 'tenant failed', 'tenants failed'));
  if (summary.emailsFailed > 0) parts.push(counted(summary.emailsFailed, 'email failed', 'emails failed'));
  if (summary.emailsParked > 0)
    parts.push(counted(summary.emailsParked, 'email parked as failed', 'emails parked as failed'));
  return `sweep (${now.toISOString()}): ${parts.join(', ')}`;
};

export interface LocalSweeperOptions {
  /** The sweep's time budget (the cloud's is at most 50 s). */
  budgetMs?: number;
  /** Where the line of a sweep that changed something goes (`npm start`: its output); silent without. */
  log?: (line: string) => void;
  /** Runs after every sweep that sent mail (`npm start`: copies the sent mail into the data folder). */
  afterMail?: () => Promise<unknown>;
}

/**
 * The local stand-in for the reconciler's schedule and its one-at-a-time rule (in the cloud the
 * sweep lease of functions/store/sweep-lease.ts): runs never overlap; a nudge during a run asks for
 * one more run right after it.
 */
export class LocalSweeper {
  private running: Promise<SweepSummary> | undefined;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly options: LocalSweeperOptions;
  last: SweepSummary | undefined;
  /** When the last sweep completed, on the wall clock (what `npm run smoke -- --local` asks). */
  lastCompletedAt: Date | undefined;

  constructor(options: LocalSweeperOptions = {}) {
    this.options = options;
  }

  /** Runs one sweep now (after the current one, if any) and answers its summary. */
  async runNow(): Promise<SweepSummary> {
    while (this.running) await this.running.catch(() => undefined);
    this.running = this.sweepOnce().finally(() => {
      this.running = undefined;
    });
    this.last = await this.running;
    this.lastCompletedAt = new Date(Date.now());
    return this.last;
  }

  private async sweepOnce(): Promise<SweepSummary> {
    const summary = await runSweep(this.options.budgetMs ?? 50_000);
    const line = this.options.log && sweepLine(summary, clock().now());
    if (line) this.options.log?.(line);
    if (summary.emailsSent > 0 && this.options.afterMail) {
      await this.options
        .afterMail()
        .catch((error: unknown) => console.error('could not copy the sent mail', error));
    }
    return summary;
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
