import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { PlanChangeExecution, PlanChangeStep } from '../../functions/core/plan-change.ts';
import { QUEUED_EXPIRY_DAYS } from '../../functions/core/plan-change.ts';
import {
  CAPACITY_LOOK_SECONDS,
  DISPATCHER_LOOK_SECONDS,
  nextDispatcherLook,
} from '../../functions/core/plan-change-pacing.ts';
import { REPO_ROOT } from '../../lib/constants.ts';
import { LOCAL_REGION } from '../../lib/local/cloud.ts';
import { startLocalStepFunctions, type TaskHandler } from '../../lib/local/stepfunctions.ts';
import { usePlanChangeShape } from './cost.ts';

/** Step Functions Standard: USD per 1,000 state transitions (eu-west-1 list price). */
export const PRICE_PER_THOUSAND_TRANSITIONS = 0.025;
/** A change that waits the whole 7 days must stay under this many transitions (docs/plan-changes.md). */
export const WAITING_TRANSITIONS_TARGET = 2_100;
/** Capacity openings simulated, spread evenly over one look period. */
const OPENINGS = 60;

const DAY_MS = 86_400_000;
const START = Date.parse('2026-06-01T00:00:00.000Z');

/** What the Dispatcher steps lead to once their one look sees the step done. */
const AFTER: Partial<Record<PlanChangeStep, PlanChangeStep>> = {
  drain_work: 'prepare',
  prepare: 'switch',
  switch: 'verify',
  verify: 'commit_billing',
  commit_billing: 'complete',
  complete: 'done',
};

/**
 * The fake tasks: paced as the real ones (the same constants), each change on its own simulated
 * clock, which the runner's hook moves by `waitSeconds` before every task (the Wait states take
 * no real time here).
 */
const simulation = () => {
  const clocks = new Map<string, number>();
  /** When capacity opens for a change (never, when absent). */
  const opensAt = new Map<string, number>();
  /** When a change left Waiting for Capacity. */
  const foundAt = new Map<string, number>();
  const now = (input: PlanChangeExecution) => clocks.get(input.changeId) ?? START;

  const findCapacity: TaskHandler = (input) => {
    const at = now(input);
    if (at >= Date.parse(input.expiresAt)) return { ...input, step: 'done', waitSeconds: 0 };
    if (at >= (opensAt.get(input.changeId) ?? Number.POSITIVE_INFINITY)) {
      foundAt.set(input.changeId, at);
      return { ...input, step: 'drain_work', waitSeconds: 0 };
    }
    return { ...input, waitSeconds: CAPACITY_LOOK_SECONDS };
  };
  /** A step the Dispatcher carries out: asked at once, seen done at the first look. */
  const dispatcherStep: TaskHandler = (input) =>
    input.waitSeconds === 0
      ? { ...input, waitSeconds: nextDispatcherLook(0) }
      : { ...input, step: AFTER[input.step] ?? 'done', waitSeconds: 0 };
  const once: TaskHandler = (input) => ({ ...input, step: AFTER[input.step] ?? 'done', waitSeconds: 0 });

  return {
    clocks,
    opensAt,
    foundAt,
    handlers: {
      FindCapacity: findCapacity,
      DrainWork: dispatcherStep,
      Prepare: dispatcherStep,
      Switch: dispatcherStep,
      Verify: dispatcherStep,
      CommitBilling: once,
      Complete: once,
      RollBack: (input: PlanChangeExecution) => ({ ...input, step: 'done' as const, waitSeconds: 0 }),
    } satisfies Record<string, TaskHandler>,
  };
};

const dollars = (transitions: number) => (transitions * PRICE_PER_THOUSAND_TRANSITIONS) / 1000;

/**
 * The Plan Change workflow's cost and pacing: statemachines/plan-change.asl.json run by the local
 * Step Functions with fake tasks, transitions counted as AWS bills them (each state entered).
 */
export const printPlanChangeFigures = async (verdict: (ok: boolean) => string = () => '') => {
  const sim = simulation();
  const sfn = await startLocalStepFunctions({
    region: LOCAL_REGION,
    handlers: sim.handlers,
    waitMs: 0,
    beforeTask: (_state, input) => {
      sim.clocks.set(input.changeId, (sim.clocks.get(input.changeId) ?? START) + input.waitSeconds * 1000);
    },
  });
  try {
    const run = async (name: string, step: PlanChangeStep, opensAfterSeconds?: number) => {
      const input: PlanChangeExecution = {
        changeId: name,
        tenantId: 'bench',
        expiresAt: new Date(START + QUEUED_EXPIRY_DAYS * DAY_MS).toISOString(),
        step,
        waitSeconds: 0,
      };
      sim.clocks.set(name, START);
      if (opensAfterSeconds !== undefined) sim.opensAt.set(name, START + opensAfterSeconds * 1000);
      sfn.startExecution(name, JSON.stringify(input));
      const ended = await sfn.settled(name);
      if (ended.status !== 'SUCCEEDED') throw new Error(`${name} ended ${ended.status}: ${ended.cause}`);
      return { ...ended, simulatedSeconds: ((sim.clocks.get(name) ?? START) - START) / 1000 };
    };

    const immediate = await run('pc_bench_immediate', 'drain_work');
    const expired = await run('pc_bench_expires', 'find_capacity');
    const delays: number[] = [];
    for (let i = 0; i < OPENINGS; i++) {
      // Openings spread evenly over one look period, a few hours into the wait.
      const opensAfter = 3 * 3600 + ((i + 0.5) * CAPACITY_LOOK_SECONDS) / OPENINGS;
      const name = `pc_bench_opens_${i}`;
      await run(name, 'find_capacity', opensAfter);
      delays.push(((sim.foundAt.get(name) ?? Number.NaN) - (START + opensAfter * 1000)) / 1000);
    }
    const worst = Math.max(...delays);
    const mean = delays.reduce((sum, delay) => sum + delay, 0) / delays.length;

    console.log(
      `\nPlan Change workflow (the ASL on the local Step Functions, fake tasks paced as the real ones: a look for capacity every ${CAPACITY_LOOK_SECONDS} s, at the Dispatcher after ${DISPATCHER_LOOK_SECONDS} s; $${PRICE_PER_THOUSAND_TRANSITIONS} per 1,000 transitions)`,
    );
    console.log(
      `  immediate change (drain, prepare, switch, verify: one look each; commit, complete): ${immediate.transitions} transitions = $${dollars(immediate.transitions).toFixed(5)}; ${immediate.simulatedSeconds} s of waits (simulated)`,
    );
    console.log(
      `  waits the full ${QUEUED_EXPIRY_DAYS} days and expires: ${expired.transitions.toLocaleString('en')} transitions (${expired.entered.FindCapacity ?? 0} looks) = $${dollars(expired.transitions).toFixed(4)} (target < ${WAITING_TRANSITIONS_TARGET.toLocaleString('en')} transitions)  ${verdict(expired.transitions < WAITING_TRANSITIONS_TARGET)}`,
    );
    console.log(
      `  capacity opens -> leaves Waiting for Capacity (${OPENINGS} openings spread over one ${CAPACITY_LOOK_SECONDS} s period, simulated time): worst ${worst.toFixed(0)} s, mean ${mean.toFixed(0)} s (bound: the look period, ${CAPACITY_LOOK_SECONDS} s)  ${verdict(worst <= CAPACITY_LOOK_SECONDS)}`,
    );
    // The bill's Plan Change: what the immediate change entered (transitions), its Task states (runs).
    const definition = JSON.parse(
      readFileSync(path.join(REPO_ROOT, 'statemachines', 'plan-change.asl.json'), 'utf8'),
    ) as { States: Record<string, { Type: string }> };
    usePlanChangeShape(
      immediate.entered,
      Object.entries(definition.States)
        .filter(([, state]) => state.Type === 'Task')
        .map(([name]) => name),
    );
    return { immediate, expired, worst, mean };
  } finally {
    await sfn.stop();
  }
};

if (import.meta.main) await printPlanChangeFigures((ok) => (ok ? 'meets target' : 'MISSES TARGET'));
