import { describe, expect, it } from 'vitest';
import { isMoneyOperation, requestLineKept, sampleRateOf } from '#core/request-log.ts';

const line = (routeKey: string, status: number, draw = 0.5, sampleRate = 0) =>
  requestLineKept({ routeKey, method: routeKey.split(' ')[0] ?? 'GET', status, sampleRate, draw });

describe('which request lines are written', () => {
  it('always writes an error, whatever the route and the rate', () => {
    expect(line('GET /v1/me', 500)).toBe('error');
    expect(line('PUT /v1/dispatcher/observed-state', 503)).toBe('error');
  });

  it('always writes a refusal of a money operation, and samples a refusal of a read', () => {
    for (const route of [
      'POST /v1/billing/checkout',
      'POST /v1/billing/portal',
      'POST /v1/stacks',
      'POST /v1/stacks/{stackId}/plan-changes',
      'POST /v1/stacks/{stackId}/plan-changes/preview',
      'POST /v1/plan-changes/{changeId}/cancel',
      'POST /v1/tenant/close',
      'POST /ops/refunds',
    ]) {
      expect(isMoneyOperation(route), route).toBe(true);
      expect(line(route, 409), route).toBe('money_refusal');
    }
    expect(line('GET /v1/billing/status', 401)).toBeNull();
    expect(line('POST /v1/stacks/{stackId}/projects', 409)).toBeNull();
  });

  it('always writes a state change, but a Dispatcher’s observed state is routine', () => {
    expect(line('POST /v1/stacks/{stackId}/projects', 201)).toBe('state_change');
    expect(line('DELETE /v1/credentials/{name}', 204)).toBe('state_change');
    expect(line('PUT /v1/dispatcher/observed-state', 200)).toBeNull();
    expect(line('PUT /v1/dispatcher/observed-state', 200, 0.01, 0.05)).toBe('sampled');
  });

  it('samples routine reads at the rate: none at 0, all at 1, below the rate at a share', () => {
    expect(line('GET /v1/stacks', 200, 0, 0)).toBeNull();
    expect(line('GET /v1/stacks', 200, 0.999, 1)).toBe('sampled');
    expect(line('GET /v1/stacks', 200, 0.049, 0.05)).toBe('sampled');
    expect(line('GET /v1/stacks', 200, 0.05, 0.05)).toBeNull();
  });

  it('reads a rate from 0 to 1, and falls back on anything else', () => {
    expect(sampleRateOf('0', 0.05)).toBe(0);
    expect(sampleRateOf('1', 0.05)).toBe(1);
    expect(sampleRateOf('0.25', 0.05)).toBe(0.25);
    for (const bad of [undefined, '', 'all', '-0.1', '1.5', 'NaN'])
      expect(sampleRateOf(bad, 0.05), bad).toBe(0.05);
  });
});
