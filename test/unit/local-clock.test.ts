import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AdjustableClock } from '../../lib/local/clock.ts';

describe('the local adjustable clock', () => {
  const fixedReal = () => Date.parse('2026-03-01T00:00:00Z');

  it('starts at real time and moves forward by the seconds asked', () => {
    const clock = new AdjustableClock(fixedReal);
    expect(clock.now().toISOString()).toBe('2026-03-01T00:00:00.000Z');
    clock.advance(7 * 86400);
    expect(clock.now().toISOString()).toBe('2026-03-08T00:00:00.000Z');
    expect(clock.offsetSeconds).toBe(7 * 86400);
  });

  it('never goes back', () => {
    const clock = new AdjustableClock(fixedReal);
    expect(() => clock.advance(-1)).toThrow(RangeError);
    expect(() => clock.advance(Number.NaN)).toThrow(RangeError);
  });

  it('keeps its offset across restarts through its state file', () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'clock-')), 'clock.json');
    new AdjustableClock(fixedReal, file).advance(3600);
    expect(new AdjustableClock(fixedReal, file).now().toISOString()).toBe('2026-03-01T01:00:00.000Z');
  });
});
