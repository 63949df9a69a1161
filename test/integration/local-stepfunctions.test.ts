import {
  DescribeExecutionCommand,
  SFNClient,
  StartExecutionCommand,
  StopExecutionCommand,
} from '@aws-sdk/client-sfn';
import { afterEach, describe, expect, it } from 'vitest';
import type { PlanChangeExecution } from '#core/plan-change.ts';
import { executionArn, startPlanChange, stopPlanChange } from '#ports/workflows.ts';
import { LOCAL_REGION } from '../../lib/local/cloud.ts';
import {
  type LocalStepFunctions,
  type LocalStepFunctionsOptions,
  startLocalStepFunctions,
  type TaskHandler,
} from '../../lib/local/stepfunctions.ts';
import { PLAN_CHANGE_TASKS } from '../../lib/plan-change-tasks.ts';
import { calls as fakeTaskCalls } from '../support/plan-change-fake-task.ts';
import { waitFor } from '../support/wait.ts';

let running: LocalStepFunctions | undefined;
let client: SFNClient | undefined;
const failures: string[] = [];

/** A stand-in with these fake tasks; the workflows port and a raw SDK client point at it. */
const standIn = async (
  handlers: Record<string, TaskHandler>,
  options: Partial<LocalStepFunctionsOptions> = {},
) => {
  running = await startLocalStepFunctions({
    region: LOCAL_REGION,
    handlers,
    waitMs: 5,
    log: (message) => failures.push(message),
    ...options,
  });
  process.env.AWS_ENDPOINT_URL_SFN = running.endpoint;
  process.env.PLAN_CHANGE_STATE_MACHINE_ARN = running.stateMachineArn;
  client = new SFNClient({ endpoint: running.endpoint });
  return running;
};

afterEach(async () => {
  await running?.stop();
  client?.destroy();
  running = undefined;
  failures.length = 0;
});

let changes = 0;
const change = (step: PlanChangeExecution['step'], waitSeconds = 0): PlanChangeExecution => ({
  changeId: `pc_test${++changes}_${Math.random().toString(36).slice(2, 8)}`,
  tenantId: 'tenant-1',
  expiresAt: '2026-12-01T00:00:00.000Z',
  step,
  waitSeconds,
});

/** Starts a change at `step` on a stand-in with these fake tasks, and waits for its execution to end. */
const runToEnd = async (step: PlanChangeExecution['step'], handlers: Record<string, TaskHandler>) => {
  const sfn = await standIn(handlers);
  const input = change(step);
  await startPlanChange(input);
  return { sfn, input, ended: await sfn.settled(input.changeId) };
};

const until = (condition: () => boolean) => waitFor('the condition', condition, { everyMs: 5, rounds: 2000 });

/** A fake task that records its inputs and answers `next(input, callNumber)`. */
const fake = (next: (input: PlanChangeExecution, call: number) => PlanChangeExecution) => {
  const inputs: PlanChangeExecution[] = [];
  const handler: TaskHandler = async (input) => {
    inputs.push(input);
    return next(input, inputs.length);
  };
  return { inputs, handler };
};

const to =
  (step: PlanChangeExecution['step'], waitSeconds = 0) =>
  (input: PlanChangeExecution) => ({
    ...input,
    step,
    waitSeconds,
  });

/**
 * A change whose FindCapacity never finds room, on a stand-in whose Waits take `waitMs`: started,
 * and seen pacing once.
 */
const pacingChange = async (waitMs: number) => {
  const findCapacity = fake((input) => ({ ...input, waitSeconds: 900 }));
  const sfn = await standIn({ FindCapacity: findCapacity.handler }, { waitMs });
  const input = change('find_capacity');
  await startPlanChange(input);
  await until(() => (sfn.execution(input.changeId)?.entered.PaceFindCapacity ?? 0) === 1);
  return { findCapacity, sfn, input };
};

describe('the local Step Functions, through the workflows port', () => {
  it('loops FindCapacity, paced, until a look finds capacity, then runs on to done; transitions counted', async () => {
    const findCapacity = fake((input, call) =>
      call < 4 ? { ...input, waitSeconds: 900 } : { ...input, step: 'drain_work', waitSeconds: 0 },
    );
    const drainWork = fake(to('done'));
    const { sfn, ended, input } = await runToEnd('find_capacity', {
      FindCapacity: findCapacity.handler,
      DrainWork: drainWork.handler,
    });
    expect(ended.status).toBe('SUCCEEDED');
    expect(findCapacity.inputs.map((i) => i.waitSeconds)).toEqual([0, 900, 900, 900]);
    expect(drainWork.inputs).toEqual([{ ...input, step: 'drain_work', waitSeconds: 0 }]);
    // Route, FindCapacity; 3 x (Route, PaceFindCapacity, FindCapacity); Route, DrainWork; Route, Done.
    expect(ended.transitions).toBe(2 + 3 * 3 + 2 + 2);
    expect(ended.entered).toMatchObject({ PaceFindCapacity: 3, FindCapacity: 4, DrainWork: 1, Done: 1 });

    const described = await client?.send(
      new DescribeExecutionCommand({ executionArn: executionArn(sfn.stateMachineArn, input.changeId) }),
    );
    expect(described?.status).toBe('SUCCEEDED');
    expect(described?.name).toBe(input.changeId);
    expect(JSON.parse(described?.input ?? '{}')).toEqual(input);
    expect(JSON.parse(described?.output ?? '{}')).toMatchObject({ changeId: input.changeId, step: 'done' });
    expect(described?.startDate).toBeInstanceOf(Date);
    expect(described?.stopDate).toBeInstanceOf(Date);
  });

  it('starts one execution per change: a second start of the same name starts nothing (ExecutionAlreadyExists is success)', async () => {
    const findCapacity = fake((input) => ({ ...input, waitSeconds: 900 }));
    const sfn = await standIn({ FindCapacity: findCapacity.handler }, { waitMs: 60_000 });
    const input = change('find_capacity');
    await startPlanChange(input);
    // The same name and input while running: answered again, as Step Functions does.
    await startPlanChange(input);
    // The same name with another input: the service refuses, the port treats it as done.
    const other = { ...input, expiresAt: '2027-01-01T00:00:00.000Z' };
    await expect(
      client?.send(
        new StartExecutionCommand({
          stateMachineArn: sfn.stateMachineArn,
          name: input.changeId,
          input: JSON.stringify(other),
        }),
      ),
    ).rejects.toMatchObject({ name: 'ExecutionAlreadyExists' });
    await expect(startPlanChange(other)).resolves.toBeUndefined();

    await until(() => (sfn.execution(input.changeId)?.entered.PaceFindCapacity ?? 0) === 1);
    expect(sfn.executions()).toHaveLength(1);
    expect(findCapacity.inputs).toHaveLength(1);
    expect(sfn.execution(input.changeId)?.input).toBe(JSON.stringify(input));
  });

  it('StopExecution aborts a waiting execution: ABORTED, and its task runs no more', async () => {
    const { findCapacity, sfn, input } = await pacingChange(300);

    await stopPlanChange(input.changeId, 'cancelled by the tenant');
    const described = await client?.send(
      new DescribeExecutionCommand({ executionArn: executionArn(sfn.stateMachineArn, input.changeId) }),
    );
    expect(described?.status).toBe('ABORTED');
    expect(described?.cause).toBe('cancelled by the tenant');
    // The execution has ended (nothing of it can run any more): its task ran only the once.
    await sfn.settled(input.changeId);
    expect(findCapacity.inputs).toHaveLength(1);
    expect(sfn.execution(input.changeId)?.status).toBe('ABORTED');

    // Stopping a change that has no execution is fine for the port; the service says it does not exist.
    await expect(stopPlanChange('pc_never_started', 'cancelled')).resolves.toBeUndefined();
    await expect(
      client?.send(
        new StopExecutionCommand({ executionArn: executionArn(sfn.stateMachineArn, 'pc_never_started') }),
      ),
    ).rejects.toMatchObject({ name: 'ExecutionDoesNotExist' });
  });

  it('a Task that keeps throwing in Switch is retried, then the change rolls back', async () => {
    const switchTask = fake(() => {
      throw new Error('the replacement could not be created');
    });
    const rollBack = fake(to('done'));
    const { ended, input } = await runToEnd('switch', {
      Switch: switchTask.handler,
      RollBack: rollBack.handler,
    });
    expect(ended.status).toBe('SUCCEEDED');
    // The first try and the 3 retries of States.ALL.
    expect(switchTask.inputs).toHaveLength(4);
    // The roll back gets the change, not the error.
    expect(rollBack.inputs).toEqual([{ ...input, step: 'roll_back', waitSeconds: 0 }]);
    expect(ended.entered).toMatchObject({ StartRollBack: 1, RollBack: 1, Done: 1 });
    expect(ended.lastStateError).toMatchObject({
      state: 'Switch',
      cause: expect.stringContaining('the replacement could not be created'),
    });
  });

  it('a CommitBilling that keeps throwing is retried every 5 minutes and never reaches RollBack', async () => {
    const commitBilling = fake((input, call) => {
      if (call <= 6) throw new Error('the processor refused the update');
      return { ...input, step: 'complete', waitSeconds: 0 };
    });
    const complete = fake(to('done'));
    const rollBack = fake(to('done'));
    const { ended } = await runToEnd('commit_billing', {
      CommitBilling: commitBilling.handler,
      Complete: complete.handler,
      RollBack: rollBack.handler,
    });
    expect(ended.status).toBe('SUCCEEDED');
    expect(commitBilling.inputs).toHaveLength(7);
    // After 4 tries (1 + 3 retries) the catch paces the same step by 300 s.
    expect(commitBilling.inputs.map((i) => i.waitSeconds)).toEqual([0, 0, 0, 0, 300, 300, 300]);
    expect(commitBilling.inputs.every((i) => i.step === 'commit_billing')).toBe(true);
    expect(ended.entered).toMatchObject({ CommitBillingLater: 1, PaceCommitBilling: 1, Complete: 1 });
    expect(ended.entered.RollBack).toBeUndefined();
    expect(ended.entered.StartRollBack).toBeUndefined();
    expect(rollBack.inputs).toHaveLength(0);
    expect(complete.inputs).toHaveLength(1);
  });

  it('an execution that fails is FAILED in DescribeExecution, and logged with its error', async () => {
    const verify = fake((input) => ({ ...input, step: 'no_such_step' as never }));
    const { sfn, ended, input } = await runToEnd('verify', { Verify: verify.handler });
    expect(ended.status).toBe('FAILED');
    const described = await client?.send(
      new DescribeExecutionCommand({ executionArn: executionArn(sfn.stateMachineArn, input.changeId) }),
    );
    expect(described?.status).toBe('FAILED');
    expect(described?.error).toBe('PlanChange.UnknownStep');
    expect(failures).toHaveLength(1);
    expect(failures[0]).toContain(input.changeId);
    expect(failures[0]).toContain('PlanChange.UnknownStep');
  });

  it('each Task state runs the module PLAN_CHANGE_TASKS names, imported from the repository root', async () => {
    const sfn = await standIn(
      {},
      {
        tasks: PLAN_CHANGE_TASKS.map((task) => ({ ...task, entry: 'test/support/plan-change-fake-task.ts' })),
      },
    );
    const input = change('prepare');
    const before = fakeTaskCalls.length;
    await startPlanChange(input);
    const ended = await sfn.settled(input.changeId);
    expect(ended.status).toBe('SUCCEEDED');
    expect(ended.entered).toMatchObject({ Prepare: 1, Done: 1 });
    expect(fakeTaskCalls.slice(before)).toEqual([input]);
  });

  it('refuses to start with a Task state it cannot map to a handler', async () => {
    const task = (resource: string) => ({
      StartAt: 'Mystery',
      States: { Mystery: { Type: 'Task', Resource: resource, End: true } },
    });
    await expect(
      startLocalStepFunctions({
        region: LOCAL_REGION,
        definition: task('arn:aws:lambda:eu-west-1:000000000000:function:mystery'),
      }),
    ).rejects.toThrow(/cannot run Task state\(s\) Mystery/);
    await expect(
      startLocalStepFunctions({ region: LOCAL_REGION, definition: task(`\${MysteryFunctionArn}`) }),
    ).rejects.toThrow(/MysteryFunctionArn/);
    // With a handler for it, the same definition runs.
    const sfn = await standIn(
      { Mystery: async (input) => ({ ...input, step: 'done' }) },
      { definition: task('arn:aws:lambda:eu-west-1:000000000000:function:mystery') },
    );
    const input = change('find_capacity');
    await startPlanChange(input);
    expect((await sfn.settled(input.changeId)).status).toBe('SUCCEEDED');
  });

  it('stop() aborts what still runs and closes the server', async () => {
    const { sfn, input } = await pacingChange(60_000);
    await sfn.stop();
    expect(sfn.execution(input.changeId)?.status).toBe('ABORTED');
    await expect(startPlanChange(change('find_capacity'))).rejects.toThrow();
    running = undefined;
  });
});
