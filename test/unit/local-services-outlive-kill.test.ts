import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DescribeExecutionCommand, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { describe, expect, it } from 'vitest';
import { killed, outliveChildren } from '../support/outlive.ts';
import { waitFor } from '../support/wait.ts';

/**
 * Local services that outlive a kill (issue 37, item 1): the Step Functions stand-in and the
 * processor emulator run in a child process on a data folder (test/support/outlive-child.ts),
 * which is killed with SIGKILL (no clean-up of any kind) and started again on the same folder.
 */

type Endpoints = { stepFunctions: string; arn: string; processor: string };

const outlive = outliveChildren('outlive-');
const { dataDirectory } = outlive;

/** Starts the child on the data folder, every Wait lasting `waitMs`; answers its endpoints. */
const startChild = (waitMs: number) => outlive.startChild<Endpoints>(waitMs);

const taskLines = () => {
  try {
    return readFileSync(path.join(dataDirectory, 'tasks.log'), 'utf8').trim().split('\n').filter(Boolean);
  } catch {
    return [];
  }
};

const sfn = (endpoint: string) =>
  new SFNClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });

describe('killed with SIGKILL and started again on the same data folder', () => {
  it('a Step Functions execution carries on from the state it was in and finishes', async () => {
    // A Wait of a minute: the execution is parked in it when the process is killed.
    const first = await startChild(60_000);
    const client = sfn(first.endpoints.stepFunctions);
    const { executionArn } = await client.send(
      new StartExecutionCommand({
        stateMachineArn: first.endpoints.arn,
        name: 'outlive-1',
        input: JSON.stringify({ id: 'outlive-1' }),
      }),
    );
    await waitFor('the first task', () => taskLines().length === 1);
    // Let the state after the task (the Wait) be entered and kept.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await killed(first.child);
    client.destroy();
    expect(taskLines()).toEqual([`${first.child.pid} First outlive-1`]);

    const second = await startChild(20);
    const again = sfn(second.endpoints.stepFunctions);
    const describe = () => again.send(new DescribeExecutionCommand({ executionArn }));
    await waitFor('the execution to succeed', async () => (await describe()).status === 'SUCCEEDED');
    const done = await describe();
    expect(JSON.parse(done.output ?? '{}')).toEqual({ id: 'outlive-1', steps: ['First', 'Second'] });
    // The first task ran once, before the kill; the second once, after it.
    expect(taskLines()).toEqual([
      `${first.child.pid} First outlive-1`,
      `${second.child.pid} Second outlive-1`,
    ]);
    // The same execution: its start is the first process's, and its name is still taken.
    await expect(
      again.send(
        new StartExecutionCommand({
          stateMachineArn: second.endpoints.arn,
          name: 'outlive-1',
          input: JSON.stringify({ id: 'other' }),
        }),
      ),
    ).rejects.toMatchObject({ name: 'ExecutionAlreadyExists' });
    again.destroy();
    await killed(second.child);
  });

  it('a write the processor emulator answered is there after a kill the next instant', async () => {
    const first = await startChild(20);
    const answer = await fetch(`${first.endpoints.processor}/v1/customers`, {
      method: 'POST',
      headers: {
        authorization: 'Bearer sk_test_local',
        'content-type': 'application/x-www-form-urlencoded',
        'idempotency-key': 'outlive-customer',
      },
      body: 'email=kept%40example.test',
    });
    // Killed as soon as the answer arrived: no timer of the emulator's had a chance to run.
    await killed(first.child);
    expect(answer.status).toBe(200);
    const customer = (await answer.json()) as { id: string };

    const second = await startChild(20);
    const read = await fetch(`${second.endpoints.processor}/v1/customers/${customer.id}`, {
      headers: { authorization: 'Bearer sk_test_local' },
    });
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ id: customer.id, email: 'kept@example.test' });
    await killed(second.child);
  });
});
