import { describe, expect, it } from 'vitest';
import {
  CREDENTIAL_OVERLAP_SECONDS,
  desiredStateDocument,
  desiredStateEtag,
  isDispatcherCredential,
  matchesEtag,
  POLL_IDLE_SECONDS,
  POLL_SOON_SECONDS,
  pollAfterSeconds,
  reportProblem,
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
  it('soon while the desired state is not applied, rarely once it is', () => {
    expect(POLL_SOON_SECONDS).toBe(10);
    expect(POLL_IDLE_SECONDS).toBe(300);
    expect(pollAfterSeconds(4, 4)).toBe(POLL_IDLE_SECONDS);
    expect(pollAfterSeconds(4, 3)).toBe(POLL_SOON_SECONDS);
    expect(pollAfterSeconds(4, undefined)).toBe(POLL_SOON_SECONDS);
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
    expect(desiredStateDocument(desired, 3, 10)).toEqual({ version: 3, ...desired, poll_after_seconds: 10 });
    expect(desiredStateDocument(desired, 3, 10, [])).not.toHaveProperty('credentials');
    expect(desiredStateDocument(desired, 3, 300, [{ name: 'github', version: 2 }])).toEqual({
      version: 3,
      ...desired,
      credentials: [{ name: 'github', version: 2 }],
      poll_after_seconds: 300,
    });
  });
});
