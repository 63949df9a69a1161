import { describe, expect, it } from 'vitest';
import { recordSweep } from '#ports/metrics.ts';
import { setCapacityTotal } from '#store/capacity.ts';
import { SIGNUP_HOME_REGION } from '#store/tenants.ts';
import { gatewayForFile } from '../support/file-gateway.ts';

/**
 * The sweep's gauge of the Plans placeable in the Home Region, which the alarm NoPlaceablePlan
 * reads (lib/infra/constructs/alarms.ts): a new stage whose capacity was never set counts 0 before
 * any checkout is refused; each Plan with a free place counts once, a full one not at all.
 */
const { api } = gatewayForFile();

const gauge = async () => {
  const summary = await api.sweep();
  if (!('homeRegionPlaceablePlans' in summary)) throw new Error('the sweep was skipped');
  // The figure the alarm reads is the one the sweep's metrics carry.
  expect(recordSweep(summary).HomeRegionPlaceablePlans).toBe(summary.homeRegionPlaceablePlans);
  return summary.homeRegionPlaceablePlans;
};

const setPlaces = (location: string, plan: 'standard' | 'plus' | 'pro', total: number) =>
  setCapacityTotal({ region: SIGNUP_HOME_REGION, location, plan, total }, api.clock.now());

describe('the Home Region placeable-Plans gauge (alarm NoPlaceablePlan)', () => {
  it('counts 0 with no capacity set, then each Plan with a free place in any location; a full Plan does not count', async () => {
    expect(await gauge()).toBe(0);
    await setPlaces(`${SIGNUP_HOME_REGION}-gauge-a`, 'standard', 1);
    expect(await gauge()).toBe(1);
    await setPlaces(`${SIGNUP_HOME_REGION}-gauge-a`, 'plus', 2);
    await setPlaces(`${SIGNUP_HOME_REGION}-gauge-b`, 'pro', 1);
    expect(await gauge()).toBe(3);
    // Full again (no place left): no longer placeable, and back to 0 once every Plan is full.
    await setPlaces(`${SIGNUP_HOME_REGION}-gauge-b`, 'pro', 0);
    expect(await gauge()).toBe(2);
    await setPlaces(`${SIGNUP_HOME_REGION}-gauge-a`, 'standard', 0);
    await setPlaces(`${SIGNUP_HOME_REGION}-gauge-a`, 'plus', 0);
    expect(await gauge()).toBe(0);
  });
});
