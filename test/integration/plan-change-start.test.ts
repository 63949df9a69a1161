import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listInventory } from '#store/capacity.ts';
import { listStartsOwed } from '#store/plan-changes.ts';
import { START_GRACE_MS } from '../../functions/plan-changes/start.ts';
import { type FaultProxy, startFaultProxy } from '../../lib/local/fault-proxy.ts';
import { FaultBoard } from '../../lib/local/faults.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import { planChangeWorld } from '../support/plan-change-world.ts';
import { processorView } from '../support/processor-view.ts';

/**
 * A Plan Change whose workflow start fails (issue 25): the change is recorded at confirmation, so
 * the tenant is told it is confirmed, and the sweep starts its execution once the grace after the
 * confirmation has passed, by the change's name, so a start that was in fact applied is never
 * doubled. The workflows port reaches the local Step Functions stand-in through the fault proxy.
 */

const { api, emulator } = gatewayForFile({ processor: true, stepFunctions: { waitMs: 10 } });
const { payingWithDispatcher, confirm, read, completes } = planChangeWorld(api);
const { updatesOf } = processorView(emulator);

const board = new FaultBoard({ seed: 25 });
let proxy: FaultProxy | undefined;
let direct: string | undefined;

beforeAll(async () => {
  direct = process.env.AWS_ENDPOINT_URL_SFN;
  proxy = await startFaultProxy('workflow', api.stepFunctions.endpoint, board);
  process.env.AWS_ENDPOINT_URL_SFN = proxy.endpoint;
});

afterAll(async () => {
  process.env.AWS_ENDPOINT_URL_SFN = direct;
  await proxy?.stop();
});

/** The executions of the stand-in that belong to this change (any name that carries its id). */
const executionsOf = (changeId: string) =>
  api.stepFunctions.executions().filter((execution) => execution.name.includes(changeId));

const heldPlaces = async (region: string, changeId: string) =>
  (await listInventory(region)).reservations.filter((r) => r.tenantId === `change:${changeId}`).length;

/**
 * A paying tenant confirms a change to Pro while the workflow start fails with `fault` on every
 * attempt of the SDK; the fault is disarmed after. Answers the tenant and the change's id.
 */
const confirmWhileStartFails = async (fault: 'refused' | 'applied-answer-lost') => {
  const tenant = await payingWithDispatcher('plus');
  const firedBefore = board.status().byFault[`workflow:${fault}`] ?? 0;
  board.arm({ dependency: 'workflow', fault, times: 3 });
  const confirmed = await confirm(tenant, 'pro');
  const fired = (board.status().byFault[`workflow:${fault}`] ?? 0) - firedBefore;
  board.disarm();
  expect(confirmed.status).toBe(202);
  expect(confirmed.json.status).toBe('waiting_for_work');
  return { tenant, changeId: confirmed.json.changeId as string, fired };
};

describe('a Plan Change whose workflow start fails', () => {
  it('a refused start, sent with no Idempotency-Key: confirmed all the same, started by the sweep after the grace, completed once', async () => {
    // Refused more times than the SDK tries, so the confirm's start fails for good.
    const { tenant, changeId, fired } = await confirmWhileStartFails('refused');
    expect(fired).toBeGreaterThanOrEqual(1);
    expect(executionsOf(changeId)).toEqual([]);
    expect(await heldPlaces(tenant.region, changeId)).toBe(1);

    // Within the grace the start is still the confirm's: the sweep leaves it.
    expect((await api.sweep()).planChangesStarted).toBe(0);
    expect(executionsOf(changeId)).toEqual([]);

    api.clock.advance(START_GRACE_MS / 1000 + 1);
    const swept = await api.sweep();
    expect(swept.planChangesStarted).toBe(1);
    expect(executionsOf(changeId).map((execution) => execution.name)).toEqual([changeId]);
    // Started once: the next sweep owes it nothing.
    expect((await api.sweep()).planChangesStarted).toBe(0);

    await completes(tenant, changeId);
    // The place was held once, by the confirmation; billing committed once, with our key.
    expect(await heldPlaces(tenant.region, changeId)).toBeLessThanOrEqual(1);
    const updates = updatesOf(tenant.tenantId);
    expect(updates).toHaveLength(1);
    expect(updates[0]?.idempotencyKey).toBe(`plan-change:${changeId}`);
    expect(executionsOf(changeId)).toHaveLength(1);
  });

  it('cancelled while its start is owed: the cancel answers, the place is given back, and the sweep starts nothing', async () => {
    const { tenant, changeId } = await confirmWhileStartFails('refused');
    expect(executionsOf(changeId)).toEqual([]);
    expect(await heldPlaces(tenant.region, changeId)).toBe(1);

    // No execution to stop: the cancel still ends the change and gives the held place back.
    const cancelled = await api.call('POST', `/v1/plan-changes/${changeId}/cancel`, {
      token: tenant.sessionToken,
    });
    expect(cancelled.status).toBe(200);
    expect(cancelled.json.status).toBe('cancelled');
    expect(await heldPlaces(tenant.region, changeId)).toBe(0);

    api.clock.advance(START_GRACE_MS / 1000 + 1);
    const swept = await api.sweep();
    expect(swept.planChangesStarted).toBe(0);
    expect(swept.planChangeStartsFailed).toBe(0);
    expect(executionsOf(changeId)).toEqual([]);
    // It no longer owes a start: the owed list does not hold it.
    const { owed } = await listStartsOwed(api.clock.now(), 100);
    expect(owed.map((entry) => entry.changeId)).not.toContain(changeId);
    expect((await read(tenant, changeId)).status).toBe('cancelled');
    expect(updatesOf(tenant.tenantId)).toEqual([]);
  });

  it('a start applied whose answer was lost: the sweep finds the execution there and starts nothing twice', async () => {
    // Every attempt of the SDK is applied and its answer lost: the confirm never hears back.
    const { tenant, changeId, fired } = await confirmWhileStartFails('applied-answer-lost');
    expect(fired).toBe(3);
    // It was applied: the execution runs although the confirm heard nothing.
    const [first] = executionsOf(changeId);
    expect(first?.name).toBe(changeId);

    api.clock.advance(START_GRACE_MS / 1000 + 1);
    const swept = await api.sweep();
    expect(swept.planChangesStarted).toBe(1);
    expect(swept.planChangeStartsFailed).toBe(0);
    // The same execution, not a second one.
    expect(executionsOf(changeId)).toHaveLength(1);
    expect(executionsOf(changeId)[0]?.startDate).toEqual(first?.startDate);

    await completes(tenant, changeId);
    expect(updatesOf(tenant.tenantId)).toHaveLength(1);
    expect((await read(tenant, changeId)).history).toHaveLength(5);
  });
});
