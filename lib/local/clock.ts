import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Clock } from '../../functions/ports/clock.ts';

/** Where the local control plane keeps its clock's offset in its data folder. */
export const clockStateFile = (dataDirectory: string): string => path.join(dataDirectory, 'clock.json');

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
    if (stateFile && existsSync(stateFile)) {
      const saved = JSON.parse(readFileSync(stateFile, 'utf8')) as { offsetMs?: unknown };
      if (typeof saved.offsetMs === 'number' && Number.isFinite(saved.offsetMs))
        this.offsetMs = saved.offsetMs;
    }
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

/**
 * The time of the local control plane kept in `dataDirectory`, for another process (the ops CLI):
 * real time plus the offset the control plane saved. Read only; it never advances the clock.
 */
export const localTimeOf = (dataDirectory: string, realNow: () => number = Date.now): Date =>
  new AdjustableClock(realNow, clockStateFile(dataDirectory)).now();
