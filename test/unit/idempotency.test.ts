import { describe, expect, it } from 'vitest';
import { claimVerdict, inProgressUntil } from '#core/idempotency.ts';

const claimedAt = new Date('2026-03-01T10:00:00.000Z');
const pending = {
  fingerprint: '{"plan":"pro"}',
  state: 'pending' as const,
  inProgressUntil: inProgressUntil(claimedAt, 10).toISOString(),
};
const at = (seconds: number) => new Date(claimedAt.getTime() + seconds * 1000);

describe('an Idempotency-Key already claimed', () => {
  it('held for the function timeout: in progress before it, taken over from the moment it passes', () => {
    expect(pending.inProgressUntil).toBe('2026-03-01T10:00:10.000Z');
    expect(claimVerdict(pending, pending.fingerprint, at(0))).toBe('in_progress');
    expect(claimVerdict(pending, pending.fingerprint, at(9.999))).toBe('in_progress');
    expect(claimVerdict(pending, pending.fingerprint, at(10))).toBe('take_over');
    expect(claimVerdict(pending, pending.fingerprint, at(86_400))).toBe('take_over');
  });

  it('a finished request replays, however long ago it ran', () => {
    const done = { ...pending, state: 'done' as const };
    expect(claimVerdict(done, pending.fingerprint, at(1))).toBe('replay');
    expect(claimVerdict(done, pending.fingerprint, at(3_600))).toBe('replay');
  });

  it('another request body is a reused key, whatever the claim’s state', () => {
    for (const state of ['pending', 'done'] as const)
      for (const seconds of [1, 60])
        expect(claimVerdict({ ...pending, state }, '{"plan":"plus"}', at(seconds))).toBe('reused');
  });
});
