import { describe, expect, it } from 'vitest';
import { decommissioned, FIRST_STACK_ID, renderDesiredState, stackOnPlan, tornDown } from '#core/stacks.ts';

// The desired state a Stack's Dispatcher applies while the tenant leaves: admission, teardown time.

const stack = stackOnPlan({
  stackId: FIRST_STACK_ID,
  name: 'acme.stacks.test',
  plan: 'plus',
  location: 'eu-1a',
  createdAt: '2026-11-01T00:00:00.000Z',
});
const teardownAt = '2026-12-01T00:00:00.000Z';

describe('the first Stack', () => {
  it('is called primary (routes default to it)', () => {
    expect(FIRST_STACK_ID).toBe('primary');
  });
});

describe('a leaving Stack', () => {
  it('after a portal cancel keeps admitting work until its teardown, which it is told', () => {
    const leaving = decommissioned(stack, { teardownAt, admissionOpen: true });
    expect(leaving).toEqual({
      ...stack,
      lifecycle: 'decommissioning',
      teardownAt,
      admissionOpenUntilTeardown: true,
    });
    expect(renderDesiredState(leaving)).toMatchObject({
      admission: 'open',
      lifecycle: 'decommissioning',
      teardown_at: teardownAt,
    });
  });

  it('after a grace, a refund or a close admits nothing more', () => {
    const leaving = decommissioned(stack, { teardownAt, admissionOpen: false });
    expect(leaving.admissionOpenUntilTeardown).toBe(false);
    expect(renderDesiredState(leaving)).toMatchObject({ admission: 'closed', teardown_at: teardownAt });
  });

  it('a running Stack carries no teardown time, even one left on its record', () => {
    expect(renderDesiredState({ ...stack, teardownAt })).not.toHaveProperty('teardown_at');
    expect(renderDesiredState({ ...stack, admissionOpenUntilTeardown: true }).admission).toBe('open');
  });

  it('torn down: admission closed for good, with the time it happened', () => {
    const gone = tornDown(decommissioned(stack, { teardownAt, admissionOpen: true }), teardownAt);
    expect(gone).toMatchObject({
      lifecycle: 'torn_down',
      admissionOpenUntilTeardown: false,
      tornDownAt: teardownAt,
    });
    expect(renderDesiredState(gone)).toMatchObject({ admission: 'closed', lifecycle: 'torn_down' });
    expect(renderDesiredState(gone)).not.toHaveProperty('teardown_at');
    // Whatever its record still says of admission until teardown.
    expect(
      renderDesiredState({ ...stack, lifecycle: 'torn_down', admissionOpenUntilTeardown: true }).admission,
    ).toBe('closed');
  });
});
