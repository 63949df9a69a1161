import { describe, expect, it } from 'vitest';
import {
  CREDENTIAL_OVERLAP_SECONDS,
  desiredStateDocument,
  desiredStateEtag,
  dispatcherRouteThrottles,
  HEARTBEAT_SECONDS,
  isDispatcherCredential,
  matchesEtag,
  POLL_IDLE_MAX_SECONDS,
  POLL_IDLE_MIN_SECONDS,
  POLL_IDLE_SECONDS,
  POLL_SOON_SECONDS,
  pollAfterSeconds,
  reportIsStale,
  reportProblem,
  STALE_AFTER_SECONDS,
} from '#core/dispatcher.ts';
import { renderDesiredState, stackOnPlan } from '#core/stacks.ts';

// The Dispatcher contract's pure rules (docs/dispatcher.md).

const body43 = `${'A'.repeat(20)}${'z9_-'.repeat(5)}abc`;

describe('a Dispatcher credential', () => {
  it('is scd_ and 43 base64url characters', () => {
    expect(body43).toHaveLength(43);
    expect(isDispatcherCredential(`scd_${body43}`)).toBe(true);
  });

  it('is nothing else: another prefix, another length, or another alphabet', () => {
    for (const token of [
      body43,
      `scx_${body43}`,
      `scd_${body43.slice(1)}`,
      `scd_${body43}A`,
      `scd_${body43.slice(1)}+`,
      `scd_${body43.slice(1)}/`,
      `xscd_${body43}`,
      `scd_${body43}\n`,
    ])
      expect(isDispatcherCredential(token), JSON.stringify(token)).toBe(false);
  });

  it('a rotated-out one keeps working for an hour', () => {
    expect(CREDENTIAL_OVERLAP_SECONDS).toBe(3600);
  });
});

describe('when the Dispatcher polls next', () => {
  it('soon while the desired state is not applied', () => {
    expect(POLL_SOON_SECONDS).toBe(10);
    expect(pollAfterSeconds(4, 3, 'primary')).toBe(POLL_SOON_SECONDS);
    expect(pollAfterSeconds(4, undefined, 'primary')).toBe(POLL_SOON_SECONDS);
  });

  it('rarely once it is: 900 s give or take 20%, the same for the same Stack and version', () => {
    expect([POLL_IDLE_MIN_SECONDS, POLL_IDLE_SECONDS, POLL_IDLE_MAX_SECONDS]).toEqual([720, 900, 1080]);
    const told = pollAfterSeconds(4, 4, 'primary');
    expect(told).toBeGreaterThanOrEqual(POLL_IDLE_MIN_SECONDS);
    expect(told).toBeLessThanOrEqual(POLL_IDLE_MAX_SECONDS);
    expect(pollAfterSeconds(4, 4, 'primary')).toBe(told);
  });

  it('jittered across a fleet: Stacks spread over the whole interval, evenly', () => {
    const intervals = Array.from({ length: 10_000 }, (_, i) => pollAfterSeconds(1, 1, `stack-${i}`));
    expect(Math.min(...intervals)).toBe(POLL_IDLE_MIN_SECONDS);
    expect(Math.max(...intervals)).toBe(POLL_IDLE_MAX_SECONDS);
    // Each tenth of the range holds about a tenth of the fleet (no crowd at one instant).
    const tenths = Array.from({ length: 10 }, () => 0);
    for (const seconds of intervals) {
      const tenth = Math.min(9, Math.floor(((seconds - POLL_IDLE_MIN_SECONDS) / 361) * 10));
      tenths[tenth] = (tenths[tenth] ?? 0) + 1;
    }
    for (const count of tenths) expect(Math.abs(count - 1000)).toBeLessThan(150);
    const mean = intervals.reduce((a, b) => a + b, 0) / intervals.length;
    expect(Math.abs(mean - POLL_IDLE_SECONDS)).toBeLessThan(5);
  });
});

describe('the heartbeat and a silent Dispatcher', () => {
  const reportedAt = '2026-11-01T00:00:00.000Z';
  const later = (seconds: number) => new Date(Date.parse(reportedAt) + seconds * 1000);

  it('is stale once two heartbeats and the longest idle poll have passed without a report', () => {
    expect(HEARTBEAT_SECONDS).toBe(7200);
    expect(STALE_AFTER_SECONDS).toBe(2 * 7200 + 1080);
    expect(reportIsStale(reportedAt, later(STALE_AFTER_SECONDS))).toBe(false);
    expect(reportIsStale(reportedAt, later(STALE_AFTER_SECONDS + 1))).toBe(true);
  });

  it('a Stack that never reported is not stale (it is still being created)', () => {
    expect(reportIsStale(undefined, later(10 * STALE_AFTER_SECONDS))).toBe(false);
  });
});

describe("the Dispatcher routes' throttles, from the fleet size", () => {
  it("follow the documented formula: twice the fleet's steady rate, burst twice that", () => {
    // 100,000 Stacks: 100,000/720 + 1,000/10 = 238.9/s on desired state; 100,000/7200 + 100 = 113.9/s observed.
    expect(dispatcherRouteThrottles(100_000)).toEqual({
      desiredState: { rateLimit: 478, burstLimit: 956 },
      observedState: { rateLimit: 228, burstLimit: 456 },
    });
    expect(dispatcherRouteThrottles(1_000_000).desiredState.rateLimit).toBe(4778);
  });

  it('never below the stage default, so a small deployment is not throttled harder', () => {
    expect(dispatcherRouteThrottles(100)).toEqual({
      desiredState: { rateLimit: 200, burstLimit: 400 },
      observedState: { rateLimit: 200, burstLimit: 400 },
    });
  });

  it('100,000 Stacks at steady state draw no 429: the polls a second fit the limit with room', () => {
    const stacks = 100_000;
    const intervals = Array.from({ length: stacks }, (_, i) => pollAfterSeconds(1, 1, `stack-${i}`));
    const pollsPerSecond = intervals.reduce((sum, seconds) => sum + 1 / seconds, 0);
    const { desiredState, observedState } = dispatcherRouteThrottles(stacks);
    expect(pollsPerSecond).toBeLessThan(desiredState.rateLimit / 2);
    expect(stacks / HEARTBEAT_SECONDS).toBeLessThan(observedState.rateLimit / 2);
  });
});

describe('the ETag of a desired-state version', () => {
  it('is strong and names the version', () => {
    expect(desiredStateEtag(7)).toBe('"v7"');
  });

  it('If-None-Match names it among others, weak or strong, or as *', () => {
    expect(matchesEtag('"v7"', 7)).toBe(true);
    expect(matchesEtag('"v6", W/"v7"', 7)).toBe(true);
    expect(matchesEtag(' "v1" ,"v7" ', 7)).toBe(true);
    expect(matchesEtag('*', 7)).toBe(true);
  });

  it('no header, or other versions only, does not match', () => {
    expect(matchesEtag(undefined, 7)).toBe(false);
    expect(matchesEtag('', 7)).toBe(false);
    expect(matchesEtag('"v6", "v70"', 7)).toBe(false);
    expect(matchesEtag('v7', 7)).toBe(false);
    expect(matchesEtag('X/"v7"', 7)).toBe(false);
    // W/ marks a weak tag only in front.
    expect(matchesEtag('"v7"W/', 7)).toBe(false);
  });
});

describe('an observed-state report', () => {
  it('may not claim a version never published', () => {
    expect(reportProblem({ appliedVersion: 5 }, 5)).toBeUndefined();
    expect(reportProblem({ appliedVersion: 4 }, 5)).toBeUndefined();
    expect(reportProblem({ appliedVersion: 6 }, 5)).toBe(
      "appliedVersion 6 is newer than the desired state's version 5",
    );
  });
});

describe('the desired-state document', () => {
  const desired = renderDesiredState(
    stackOnPlan({
      stackId: 'primary',
      name: 'acme.stacks.test',
      plan: 'standard',
      location: 'eu-1a',
      createdAt: '2026-11-01T00:00:00.000Z',
    }),
  );

  it('carries the version and when to poll next; Credentials to validate only when there are some', () => {
    expect(desiredStateDocument(desired, 3, 10)).toEqual({
      version: 3,
      ...desired,
      poll_after_seconds: 10,
      heartbeat_seconds: 7200,
    });
    expect(desiredStateDocument(desired, 3, 10, [])).not.toHaveProperty('credentials');
    expect(desiredStateDocument(desired, 3, 300, [{ name: 'github', version: 2 }])).toEqual({
      version: 3,
      ...desired,
      credentials: [{ name: 'github', version: 2 }],
      poll_after_seconds: 300,
      heartbeat_seconds: 7200,
    });
  });
});
