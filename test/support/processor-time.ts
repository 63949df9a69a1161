import { vi } from 'vitest';
import { processorTimeLeftMs } from '#ports/processor/deadline.ts';

/**
 * A slow processor, as the time its callers have left sees it. A file that uses this wraps the
 * deadline port's `processorTimeLeftMs` in a `vi.fn` of the real one (see item-lease-direct.test.ts);
 * `advance(ms)` then makes that much of every deadline pass at once, as a processor answering
 * slowly would, while everything else (the emulator, the table, the processor budget's pacing)
 * keeps real time. `restore()` gives the real time left back.
 */
export const processorTimePasses = () => {
  const timeLeft = vi.mocked(processorTimeLeftMs);
  const real = timeLeft.getMockImplementation();
  if (!real) throw new Error('this file must wrap processorTimeLeftMs in vi.fn (see processor-time.ts)');
  let passed = 0;
  timeLeft.mockImplementation(() => {
    const left = real();
    return left === undefined ? undefined : left - passed;
  });
  return {
    advance: (ms: number) => {
      passed += ms;
    },
    restore: () => timeLeft.mockImplementation(real),
  };
};

/**
 * A read of the subscription that takes `ms` of its caller's time: the one after `after` reads
 * that answer at once. A fault of the processor emulator that answers as usual once that time has
 * passed.
 */
export const slowSubscriptionRead = (
  time: ReturnType<typeof processorTimePasses>,
  subscriptionId: string,
  ms: number,
  after = 0,
) => {
  let reads = 0;
  return {
    method: 'GET',
    path: `/v1/subscriptions/${subscriptionId}`,
    kind: 'none' as const,
    times: after + 1,
    before: async () => {
      reads++;
      if (reads > after) time.advance(ms);
    },
  };
};
