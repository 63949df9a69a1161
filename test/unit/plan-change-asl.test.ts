import { readFileSync } from 'node:fs';
import path from 'node:path';
import { StateMachine } from 'aws-local-stepfunctions';
import { describe, expect, it } from 'vitest';
import { PLAN_CHANGE_STEPS, type PlanChangeExecution, QUEUED_EXPIRY_DAYS } from '#core/plan-change.ts';
import {
  CAPACITY_LOOK_SECONDS,
  DISPATCHER_LOOK_MAX_SECONDS,
  DISPATCHER_LOOK_SECONDS,
  nextDispatcherLook,
} from '#core/plan-change-pacing.ts';
import { REPO_ROOT } from '../../lib/constants.ts';
import { substituteDefinition } from '../../lib/local/stepfunctions.ts';
import { PLAN_CHANGE_DEFINITION_FILE, PLAN_CHANGE_TASKS } from '../../lib/plan-change-tasks.ts';

type Rule = {
  Variable?: string;
  StringEquals?: string;
  NumericGreaterThan?: number;
  And?: Rule[];
  Next?: string;
};
type Retrier = {
  ErrorEquals: string[];
  MaxAttempts?: number;
  IntervalSeconds?: number;
  BackoffRate?: number;
};
type State = {
  Type: string;
  Resource?: string;
  TimeoutSeconds?: number;
  Retry?: Retrier[];
  Catch?: { ErrorEquals: string[]; ResultPath?: string; Next: string }[];
  Next?: string;
  End?: boolean;
  Choices?: Rule[];
  Default?: string;
  SecondsPath?: string;
  Parameters?: Record<string, unknown>;
};

const text = readFileSync(path.join(REPO_ROOT, PLAN_CHANGE_DEFINITION_FILE), 'utf8');
const definition = JSON.parse(text) as {
  StartAt: string;
  QueryLanguage?: string;
  States: Record<string, State>;
};
const states = definition.States;
const state = (name: string): State => {
  const found = states[name];
  if (!found) throw new Error(`no state ${name}`);
  return found;
};
const taskStates = Object.keys(states).filter((name) => states[name]?.Type === 'Task');
const PRE_COMMIT = ['FindCapacity', 'DrainWork', 'Prepare', 'Switch', 'Verify'];
const NEVER_ROLL_BACK = ['CommitBilling', 'Complete', 'RollBack'];

/** Reads a `$.a` path of the execution state. */
const read = (input: object, variable: string | undefined) =>
  (input as Record<string, unknown>)[(variable ?? '').replace(/^\$\./, '')];

/** The rules our Route uses, evaluated as Step Functions does: the first matching rule wins. */
const matches = (rule: Rule, input: object): boolean => {
  if (rule.And) return rule.And.every((inner) => matches(inner, input));
  const value = read(input, rule.Variable);
  if (rule.StringEquals !== undefined) return value === rule.StringEquals;
  if (rule.NumericGreaterThan !== undefined)
    return typeof value === 'number' && value > rule.NumericGreaterThan;
  throw new Error(`a rule this test does not read: ${JSON.stringify(rule)}`);
};
const route = (input: object): string => {
  const choice = state('Route');
  return choice.Choices?.find((rule) => matches(rule, input))?.Next ?? choice.Default ?? '';
};

/** What a Pass state's Parameters make of `input` (`key.$` paths and literals). */
const pass = (name: string, input: object): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(state(name).Parameters ?? {}).map(([key, value]) =>
      key.endsWith('.$') ? [key.slice(0, -2), read(input, value as string)] : [key, value],
    ),
  );

/** The states entered from Route until a Task (or an end) for an execution state `input`. */
const pathFromRoute = (input: object): string[] => {
  const entered = ['Route'];
  let next = route(input);
  while (next) {
    entered.push(next);
    const current = state(next);
    if (current.Type !== 'Wait') break;
    expect(current.SecondsPath).toBe('$.waitSeconds');
    next = current.Next ?? '';
  }
  return entered;
};

const execution = (step: string, waitSeconds: number): PlanChangeExecution => ({
  changeId: 'pc_1',
  tenantId: 'tenant-1',
  expiresAt: '2026-12-01T00:00:00.000Z',
  step: step as PlanChangeExecution['step'],
  waitSeconds,
});

describe('statemachines/plan-change.asl.json', () => {
  it('is plain JSONPath: no JSONata, no Assign', () => {
    expect(definition.QueryLanguage ?? 'JSONPath').toBe('JSONPath');
    expect(text).not.toContain('{%');
    expect(text).not.toContain('"Assign"');
    expect(definition.StartAt).toBe('Route');
  });

  it('every Task state is a row of PLAN_CHANGE_TASKS, and every row a Task state, its Resource the row substitution', () => {
    expect(taskStates.sort()).toEqual(PLAN_CHANGE_TASKS.map((task) => task.state).sort());
    for (const task of PLAN_CHANGE_TASKS)
      expect(state(task.state).Resource, task.state).toBe(`\${${task.substitution}}`);
    expect(new Set(PLAN_CHANGE_TASKS.map((task) => task.substitution)).size).toBe(PLAN_CHANGE_TASKS.length);
  });

  it('PLAN_CHANGE_TASKS says what docs/plan-changes.md says: step, Task state and handler', () => {
    const docs = readFileSync(path.join(REPO_ROOT, 'docs/plan-changes.md'), 'utf8');
    const rows = [...docs.matchAll(/^\| `([a-z_]+)` \| `([A-Za-z]+)` \| `([^`]+)` \|$/gm)].map((match) => ({
      step: match[1],
      state: match[2],
      entry: match[3],
    }));
    expect(rows).toEqual(PLAN_CHANGE_TASKS.map(({ step, state, entry }) => ({ step, state, entry })));
    expect([...PLAN_CHANGE_TASKS.map((task) => task.step), 'done'].sort()).toEqual(
      [...PLAN_CHANGE_STEPS].sort(),
    );
  });

  it('every Task has TimeoutSeconds (CommitBilling 90, the others 60), retries and goes back to Route', () => {
    for (const name of taskStates) {
      const task = state(name);
      expect(task.TimeoutSeconds, name).toBe(name === 'CommitBilling' ? 90 : 60);
      expect(task.Next, name).toBe('Route');
      const retry = task.Retry ?? [];
      expect(retry.length, name).toBe(2);
      const [service, all] = retry;
      expect(service?.ErrorEquals, name).toEqual(
        expect.arrayContaining([
          'Lambda.ServiceException',
          'Lambda.TooManyRequestsException',
          'States.Timeout',
        ]),
      );
      expect(service?.BackoffRate ?? 0, name).toBeGreaterThan(1);
      // States.ALL must stand alone and last.
      expect(all?.ErrorEquals, name).toEqual(['States.ALL']);
      expect(all?.MaxAttempts ?? 0, name).toBeGreaterThanOrEqual(2);
      expect(all?.MaxAttempts ?? 0, name).toBeLessThanOrEqual(5);
    }
  });

  it('routes each step to its Task: at once when waitSeconds is 0, through its own Wait state otherwise', () => {
    for (const task of PLAN_CHANGE_TASKS) {
      expect(pathFromRoute(execution(task.step, 0)), task.step).toEqual(['Route', task.state]);
      const paced = pathFromRoute(execution(task.step, 30));
      expect(paced, task.step).toHaveLength(3);
      expect(paced[2], task.step).toBe(task.state);
      expect(state(paced[1] ?? '').Type).toBe('Wait');
    }
    expect(state(route(execution('done', 0))).Type).toBe('Succeed');
    expect(state(route(execution('done', 900))).Type).toBe('Succeed');
    expect(state(route(execution('no_such_step', 0))).Type).toBe('Fail');
  });

  it('a task before the billing commit that fails past its retries rolls the change back at once, keeping the change', () => {
    const failed = { ...execution('switch', 0), error: { Error: 'Error', Cause: 'boom' } };
    for (const name of PRE_COMMIT) {
      const catchers = state(name).Catch ?? [];
      expect(
        catchers.map((c) => c.ErrorEquals),
        name,
      ).toEqual([['States.ALL']]);
      const [catcher] = catchers;
      expect(catcher?.ResultPath, name).toBe('$.error');
      const handler = state(catcher?.Next ?? '');
      expect(handler.Type).toBe('Pass');
      expect(handler.Next).toBe('RollBack');
      expect(pass(catcher?.Next ?? '', failed)).toEqual({ ...execution('roll_back', 0) });
    }
  });

  it('CommitBilling, Complete and RollBack never roll back: a failure runs the same task again after 300 s', () => {
    for (const name of NEVER_ROLL_BACK) {
      const task = PLAN_CHANGE_TASKS.find((row) => row.state === name);
      const catchers = state(name).Catch ?? [];
      expect(catchers, name).toHaveLength(1);
      const [catcher] = catchers;
      expect(catcher?.ErrorEquals).toEqual(['States.ALL']);
      const later = catcher?.Next ?? '';
      expect(state(later).Type, name).toBe('Pass');
      expect(state(later).Next, name).toBe('Route');
      const output = pass(later, { ...execution(task?.step ?? '', 0), error: { Error: 'Error' } });
      expect(output, name).toEqual(execution(task?.step ?? '', 300));
      const entered = pathFromRoute(output);
      expect(entered.at(-1), name).toBe(name);
      expect(entered, name).toHaveLength(3);
    }
    // Nothing but the pre-commit catch (and Route for step roll_back) leads to RollBack.
    const intoRollBack = Object.entries(states).filter(
      ([, s]) => s.Next === 'RollBack' || s.Catch?.some((c) => c.Next === 'RollBack'),
    );
    expect(intoRollBack.map(([name]) => name).sort()).toEqual(['PaceRollBack', 'StartRollBack']);
    for (const name of NEVER_ROLL_BACK.filter((n) => n !== 'RollBack'))
      expect(state(name).Catch?.[0]?.Next).not.toBe('StartRollBack');
  });

  it('a look for capacity is 3 transitions, so 7 days of looks every 900 s stay under 2,100', () => {
    const look = pathFromRoute(execution('find_capacity', CAPACITY_LOOK_SECONDS));
    expect(look).toEqual(['Route', 'PaceFindCapacity', 'FindCapacity']);
    const looks = (QUEUED_EXPIRY_DAYS * 86_400) / CAPACITY_LOOK_SECONDS;
    // The first look at once (Route, FindCapacity), then the paced ones, then Route and Done.
    expect(2 + looks * look.length + 2).toBeLessThan(2_100);
  });

  it('is a valid state machine once its substitutions are made (asl-validator, as the local runner checks it)', () => {
    const substituted = substituteDefinition(text, PLAN_CHANGE_TASKS, 'eu-west-1');
    expect(() => new StateMachine(substituted)).not.toThrow();
    expect(JSON.stringify(substituted)).not.toContain('${');
    expect(() => substituteDefinition(text, PLAN_CHANGE_TASKS.slice(1), 'eu-west-1')).toThrow(
      /FindCapacityFunctionArn/,
    );
  });
});

describe('Plan Change pacing', () => {
  it('looks for capacity every 15 minutes', () => {
    expect(CAPACITY_LOOK_SECONDS).toBe(900);
  });

  it('looks at the Dispatcher after 10 s, doubling up to 5 minutes', () => {
    const waits = [0];
    for (let i = 0; i < 8; i++) waits.push(nextDispatcherLook(waits.at(-1) ?? 0));
    expect(waits.slice(1)).toEqual([10, 20, 40, 80, 160, 300, 300, 300]);
    expect(DISPATCHER_LOOK_SECONDS).toBe(10);
    expect(DISPATCHER_LOOK_MAX_SECONDS).toBe(300);
    expect(nextDispatcherLook(Number.NaN)).toBe(10);
    expect(nextDispatcherLook(250)).toBe(300);
  });
});
