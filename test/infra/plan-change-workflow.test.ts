import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../lib/constants.ts';
import { PLAN_CHANGE_DEFINITION_FILE, PLAN_CHANGE_TASKS } from '../../lib/plan-change-tasks.ts';
import { routes } from '../../lib/routes.ts';
import { nagViolations, synthesizedStack } from '../support/synthesized-stack.ts';

type Resource = { Type: string; Properties: Record<string, unknown> };
type Statement = { Action: string | string[]; Resource: unknown; Effect: string };

const { template, assemblyDirectory } = synthesizedStack();
const resources = template.toJSON().Resources as Record<string, Resource>;

const ofType = (type: string) => Object.entries(resources).filter(([, resource]) => resource.Type === type);
const only = <T>(items: T[], what: string): T => {
  expect(items, what).toHaveLength(1);
  return items[0] as T;
};
const stateMachine = () => only(ofType('AWS::StepFunctions::StateMachine'), 'one state machine');
const taskFunctionId = (state: string) =>
  only(
    ofType('AWS::Lambda::Function')
      .map(([id]) => id)
      .filter((id) => new RegExp(`^PlanChanges${state}[0-9A-F]{8}$`).test(id)),
    `the function of ${state}`,
  );
const statementsOf = (roleId: string): Statement[] =>
  ofType('AWS::IAM::Policy')
    .filter(([, policy]) => JSON.stringify(policy.Properties.Roles) === JSON.stringify([{ Ref: roleId }]))
    .flatMap(([, policy]) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
const actionsOf = (statement: Statement) => [statement.Action].flat();
const resource = (logicalId: string): Resource => {
  const found = resources[logicalId];
  if (!found) throw new Error(`no resource ${logicalId}`);
  return found;
};
const roleOfFunction = (functionId: string) =>
  (resource(functionId).Properties.Role as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0] ?? '';

describe('the Plan Change workflow in the CDK stack', () => {
  it('is one Standard state machine, traced, logging every event', () => {
    const [, machine] = stateMachine();
    expect(machine.Properties.StateMachineType).toBe('STANDARD');
    expect(machine.Properties.TracingConfiguration).toEqual({ Enabled: true });
    expect(machine.Properties.LoggingConfiguration).toMatchObject({ Level: 'ALL' });
  });

  it('carries statemachines/plan-change.asl.json, each substitution the ARN of that Task state function', () => {
    const [, machine] = stateMachine();
    const file = readFileSync(path.join(REPO_ROOT, PLAN_CHANGE_DEFINITION_FILE), 'utf8');
    expect(machine.Properties.DefinitionString).toBe(JSON.stringify(JSON.parse(file)));
    const substitutions = machine.Properties.DefinitionSubstitutions as Record<string, unknown>;
    expect(Object.keys(substitutions).sort()).toEqual(
      PLAN_CHANGE_TASKS.map((task) => task.substitution).sort(),
    );
    // Apply the substitutions as CloudFormation will, each ARN named by its function's logical id.
    let deployed = machine.Properties.DefinitionString as string;
    for (const [key, value] of Object.entries(substitutions)) {
      const [logicalId, attribute] = (value as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'];
      expect(attribute).toBe('Arn');
      deployed = deployed.replaceAll(`\${${key}}`, `arn-of:${logicalId}`);
    }
    expect(deployed).not.toContain('${');
    const states = (JSON.parse(deployed) as { States: Record<string, Record<string, unknown>> }).States;
    for (const task of PLAN_CHANGE_TASKS)
      expect(states[task.state]?.Resource, task.state).toBe(`arn-of:${taskFunctionId(task.state)}`);
    for (const [name, state] of Object.entries(states).filter(([, s]) => s.Type === 'Task')) {
      expect(state.TimeoutSeconds, name).toEqual(expect.any(Number));
      expect((state.Retry as unknown[]).length, name).toBeGreaterThan(0);
    }
  });

  it('one function per task, ending before its Task state times out, with its table access; only a task that calls the processor has its key', () => {
    const states = (
      JSON.parse(readFileSync(path.join(REPO_ROOT, PLAN_CHANGE_DEFINITION_FILE), 'utf8')) as {
        States: Record<string, { TimeoutSeconds: number }>;
      }
    ).States;
    for (const task of PLAN_CHANGE_TASKS) {
      const id = taskFunctionId(task.state);
      const fn = resources[id] as Resource;
      expect(fn.Properties.Runtime).toBe('nodejs24.x');
      expect(fn.Properties.Timeout as number).toBeLessThan(states[task.state]?.TimeoutSeconds ?? 0);
      const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      expect(Object.keys(variables)).toContain('TABLE_NAME');
      expect('PROCESSOR_API_KEY_ARN' in variables, task.state).toBe(task.callsProcessor === true);
      const actions = statementsOf(roleOfFunction(id)).flatMap(actionsOf);
      expect(actions, task.state).toEqual(
        expect.arrayContaining(task.table.actions.map((action) => `dynamodb:${action}`)),
      );
      expect(actions.includes('secretsmanager:GetSecretValue'), task.state).toBe(
        task.callsProcessor === true,
      );
      expect(
        actions.some((action) => action.startsWith('ses:')),
        task.state,
      ).toBe(false);
    }
  });

  it("the state machine's role may invoke each task function (and nothing else of Lambda)", () => {
    const [, machine] = stateMachine();
    const roleId = (machine.Properties.RoleArn as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0] ?? '';
    const invokes = statementsOf(roleId).filter((statement) =>
      actionsOf(statement).includes('lambda:InvokeFunction'),
    );
    const invoked = JSON.stringify(invokes.map((statement) => statement.Resource));
    for (const task of PLAN_CHANGE_TASKS) expect(invoked, task.state).toContain(taskFunctionId(task.state));
    const lambdaIds = ofType('AWS::Lambda::Function').map(([id]) => id);
    const invokedIds = lambdaIds.filter((id) => invoked.includes(`"${id}"`));
    expect(invokedIds.sort()).toEqual(PLAN_CHANGE_TASKS.map((task) => taskFunctionId(task.state)).sort());
  });

  it('the confirm and cancel routes may start, stop and describe its executions; the reconciler may only start them; no other function may', () => {
    const [machineId] = stateMachine();
    const workflowRoutes = routes.filter((route) => route.startsPlanChanges);
    expect(workflowRoutes.map((route) => route.id).sort()).toEqual([
      'PostPlanChange',
      'PostPlanChangeCancel',
    ]);
    const allowed = new Set<string>();
    for (const route of workflowRoutes) {
      const fnId = only(
        ofType('AWS::Lambda::Function')
          .map(([id]) => id)
          .filter((id) => new RegExp(`^Api${route.id}[0-9A-F]{8}$`).test(id)),
        route.id,
      );
      const statements = statementsOf(roleOfFunction(fnId));
      const start = statements.find((s) => actionsOf(s).includes('states:StartExecution'));
      expect(start?.Resource, route.id).toEqual({ Ref: machineId });
      const stop = statements.find((s) => actionsOf(s).includes('states:StopExecution'));
      expect(actionsOf(stop as Statement)).toEqual(
        expect.arrayContaining(['states:StopExecution', 'states:DescribeExecution']),
      );
      const stopArn = JSON.stringify(stop?.Resource);
      expect(stopArn).toContain(':execution:');
      expect(stopArn).toContain(`"${machineId}","Name"`);
      const variables = (resource(fnId).Properties.Environment as { Variables: Record<string, unknown> })
        .Variables;
      expect(variables.PLAN_CHANGE_STATE_MACHINE_ARN).toEqual({ Ref: machineId });
      allowed.add(roleOfFunction(fnId));
    }
    // The sweep starts the executions whose start a confirm saw refused (functions/plan-changes/start.ts).
    const sweepId = only(
      ofType('AWS::Lambda::Function')
        .map(([id]) => id)
        .filter((id) => /^ReconcilerSweep[0-9A-F]{8}$/.test(id)),
      'the reconciler',
    );
    const sweepStatements = statementsOf(roleOfFunction(sweepId)).filter((s) =>
      actionsOf(s).some((action) => action.startsWith('states:')),
    );
    expect(sweepStatements.map((s) => [actionsOf(s), s.Resource])).toEqual([
      [['states:StartExecution'], { Ref: machineId }],
    ]);
    expect(
      (resource(sweepId).Properties.Environment as { Variables: Record<string, unknown> }).Variables
        .PLAN_CHANGE_STATE_MACHINE_ARN,
    ).toEqual({ Ref: machineId });
    allowed.add(roleOfFunction(sweepId));
    const others = ofType('AWS::IAM::Policy').filter(
      ([, policy]) =>
        JSON.stringify(policy.Properties.PolicyDocument).includes('states:') &&
        !(policy.Properties.Roles as { Ref: string }[]).every((role) => allowed.has(role.Ref)),
    );
    expect(others.map(([id]) => id)).toEqual([]);
  });

  it('alarms the operators when the processor refuses a billing commit and when an execution fails', () => {
    const [machineId] = stateMachine();
    const topic = only(ofType('AWS::SNS::Topic'), 'the alarm topic')[0];
    const alarm = (id: string) =>
      only(
        ofType('AWS::CloudWatch::Alarm').filter(([logicalId]) =>
          new RegExp(`^PlanChanges${id}[0-9A-F]{8}$`).test(logicalId),
        ),
        id,
      );
    const [refusedId, refused] = alarm('BillingCommitRefused');
    expect(refused.Properties).toMatchObject({
      Namespace: 'StackControlPlane',
      MetricName: 'PlanChangeBillingCommitRefused',
      Dimensions: [{ Name: 'service', Value: 'stack-control-plane' }],
      Statistic: 'Sum',
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
      AlarmActions: [{ Ref: topic }],
    });
    const [failedId, failed] = alarm('ExecutionsFailed');
    expect(failed.Properties).toMatchObject({
      Namespace: 'AWS/States',
      MetricName: 'ExecutionsFailed',
      Dimensions: [{ Name: 'StateMachineArn', Value: { Ref: machineId } }],
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
      AlarmActions: [{ Ref: topic }],
    });
    const [, dashboard] = only(ofType('AWS::CloudWatch::Dashboard'), 'the dashboard');
    const body = JSON.stringify(dashboard.Properties.DashboardBody);
    expect(body).toContain(refusedId);
    expect(body).toContain(failedId);
  });

  it('passes cdk-nag with nothing unacknowledged', () => {
    expect(nagViolations(assemblyDirectory)).toEqual([]);
  });
});
