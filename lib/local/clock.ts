import { writeFileSync } from 'node:fs';
import type { Clock } from '../../functions/ports/clock.ts';
import { savedOffsetMs } from '../local-data.ts';

/**
 * The local control plane's clock: real time plus an offset that only grows. Advancing it moves
 * every grace period, expiry and window forward, like a Stripe test clock; the processor emulator
 * reads the same clock. With a state file the offset survives restarts.
 */
export class AdjustableClock implements Clock {
  private offsetMs = 0;
  private readonly listeners: ((now: Date) => void)[] = [];
  private readonly realNow: () => number;
  private readonly stateFile: string | undefined;

  constructor(realNow: () => number = Date.now, stateFile?: string) {
    this.realNow = realNow;
    this.stateFile = stateFile;
    if (stateFile) this.offsetMs = savedOffsetMs(stateFile);
  }

  now(): Date {
    return new Date(this.realNow() + this.offsetMs);
  }

  /** Moves time forward; time never goes back. */
  advance(seconds: number): Date {
    if (!Number.isFinite(seconds) || seconds < 0)
      throw new RangeError('seconds must be a non-negative number');
    this.offsetMs += Math.round(seconds * 1000);
    if (this.stateFile) writeFileSync(this.stateFile, JSON.stringify({ offsetMs: this.offsetMs }));
    const now = this.now();
    for (const listener of this.listeners) listener(now);
    return now;
  }

  /** Runs `listener` after every advance (the processor emulator bills what came due). */
  onAdvance(listener: (now: Date) => void): void {
    this.listeners.push(listener);
  }

  get offsetSeconds(): number {
    return this.offsetMs / 1000;
  }
}
