import { SFNClient, StartExecutionCommand, StopExecutionCommand } from '@aws-sdk/client-sfn';
import type { PlanChangeExecution } from '#core/plan-change.ts';
import { config } from './config.ts';
import { recordDependencyFault } from './metrics.ts';
import { traced } from './tracer.ts';

export type { PlanChangeExecution } from '#core/plan-change.ts';

/**
 * The workflows port: starts and stops the Plan Change executions (Step Functions Standard, one
 * execution per change, named after the change's id). Locally AWS_ENDPOINT_URL_SFN points the SDK
 * at the in-process stand-in (lib/local/stepfunctions.ts), which speaks the same protocol.
 */
let cached: { endpoint: string | undefined; client: SFNClient } | undefined;
const sfn = (): SFNClient => {
  const endpoint = config.stepFunctionsEndpoint();
  // A new client when the endpoint changes (each local control plane, or test, has its own stand-in).
  if (!cached || cached.endpoint !== endpoint) {
    cached?.client.destroy();
    cached = { endpoint, client: traced(new SFNClient(endpoint ? { endpoint } : {})) };
  }
  return cached.client;
};

/** `arn:...:stateMachine:<name>` -> `arn:...:execution:<name>:<executionName>`. */
export const executionArn = (stateMachineArn: string, executionName: string): string => {
  if (!stateMachineArn.includes(':stateMachine:'))
    throw new Error(`not a state machine ARN: ${stateMachineArn}`);
  return `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${executionName}`;
};

const named = (error: unknown, name: string): boolean => error instanceof Error && error.name === name;

/**
 * Starts the change's execution, named after its id. A retried start starts nothing twice: an
 * execution of that name already there (running, or ended) is success.
 */
export const startPlanChange = async (input: PlanChangeExecution): Promise<void> => {
  try {
    await sfn().send(
      new StartExecutionCommand({
        stateMachineArn: config.planChangeStateMachineArn(),
        name: input.changeId,
        input: JSON.stringify(input),
      }),
    );
  } catch (error) {
    if (named(error, 'ExecutionAlreadyExists')) return;
    recordDependencyFault('workflow_start_refused');
    throw error;
  }
};

/** Stops the change's execution (a cancel); an execution that does not exist is fine. */
export const stopPlanChange = async (changeId: string, cause: string): Promise<void> => {
  try {
    await sfn().send(
      new StopExecutionCommand({
        executionArn: executionArn(config.planChangeStateMachineArn(), changeId),
        error: 'PlanChange.Cancelled',
        cause,
      }),
    );
  } catch (error) {
    if (named(error, 'ExecutionDoesNotExist')) return;
    throw error;
  }
};
