import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { StateMachine, type StateMachineDefinition } from 'aws-local-stepfunctions';
import type { PlanChangeExecution } from '../../functions/core/plan-change.ts';
import { REPO_ROOT } from '../constants.ts';
import {
  LOCAL_PLAN_CHANGE_STATE_MACHINE_NAME,
  PLAN_CHANGE_DEFINITION_FILE,
  PLAN_CHANGE_TASKS,
  type PlanChangeTask,
} from '../plan-change-tasks.ts';
import { closeServer, listenOn } from './ports.ts';

// aws-local-stepfunctions calls Promise.withResolvers (Node 22+). Our scripts run Node 24 (the
// `node` devDependency); under an older Node, supply it rather than fail inside a Task state.
if (typeof (Promise as { withResolvers?: unknown }).withResolvers !== 'function') {
  Object.defineProperty(Promise, 'withResolvers', {
    configurable: true,
    writable: true,
    value: <T>() => {
      let resolve!: (value: T | PromiseLike<T>) => void;
      let reject!: (reason?: unknown) => void;
      const promise = new Promise<T>((yes, no) => {
        resolve = yes;
        reject = no;
      });
      return { promise, resolve, reject };
    },
  });
}

/** The account of every local ARN. */
export const LOCAL_ACCOUNT = '000000000000';

/** What a Task state runs: the task handler's signature (`handler(input) => execution state`). */
export type TaskHandler = (input: PlanChangeExecution) => Promise<PlanChangeExecution> | PlanChangeExecution;

export type LocalExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'ABORTED';

export interface LocalExecution {
  name: string;
  executionArn: string;
  /** The execution input, as given (JSON text). */
  input: string;
  status: LocalExecutionStatus;
  /** State transitions so far: the StateEntered events of the execution's event log (what AWS bills). */
  transitions: number;
  /** How often each state was entered. */
  entered: Record<string, number>;
  startDate: Date;
  stopDate?: Date;
  /** JSON text, once SUCCEEDED. */
  output?: string;
  /** The last error a state raised (retried, caught or not): where to look when a run goes astray. */
  lastStateError?: { state: string; error: string; cause: string };
  /** Once FAILED (the error name) or ABORTED (what StopExecution said). */
  error?: string;
  cause?: string;
}

export interface LocalStepFunctionsOptions {
  /** Region of the ARNs (the local cloud's). */
  region: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Default `plan-change`. */
  stateMachineName?: string;
  /** The definition (ASL JSON text or object); default the file PLAN_CHANGE_DEFINITION_FILE. */
  definition?: string | object;
  /** Task state -> substitution -> module; default PLAN_CHANGE_TASKS. */
  tasks?: readonly PlanChangeTask[];
  /** Handlers by Task state name, instead of importing the task's module (tests, the bench). */
  handlers?: Record<string, TaskHandler>;
  /** How long every Wait state waits, in milliseconds (default 200): waits only pace, deadlines are data. */
  waitMs?: number;
  /** How long before each Retry, in milliseconds (default 0). */
  retryMs?: number;
  /** Called before each task runs (the bench advances its clock by `input.waitSeconds`). */
  beforeTask?: (state: string, input: PlanChangeExecution) => void | Promise<void>;
  /** Start and stop dates (default the system clock: the service's time, not the control plane's). */
  now?: () => Date;
  /** Where failed executions are reported (default console.error). */
  log?: (message: string) => void;
  /**
   * Keeps every execution in `<dataDirectory>/stepfunctions/` (one file each, written before
   * StartExecution answers and at every state entered), so that executions outlive the process
   * as the service's do: `resumeKept()` carries each RUNNING one on from the last state it entered.
   */
  dataDirectory?: string;
}

/** An execution as kept on disk: its record, and where to carry it on from. */
interface KeptExecution extends Omit<LocalExecution, 'startDate' | 'stopDate'> {
  startDate: string;
  stopDate?: string;
  /** The last top-level state entered and its input: a restart enters it again with that input. */
  resume?: { state: string; input: unknown };
}

class ServiceError extends Error {
  readonly type: string;
  constructor(type: string, message: string) {
    super(message);
    this.type = type;
  }
}

type AslState = { Type?: string; Branches?: AslStates[]; ItemProcessor?: AslStates; Iterator?: AslStates };
type AslStates = { States?: Record<string, AslState> };

/** Every state of a definition by type, nested ones (Parallel branches, Map processors) included. */
const statesOfType = (definition: AslStates, type: string): string[] =>
  Object.entries(definition.States ?? {}).flatMap(([name, state]) => [
    ...(state.Type === type ? [name] : []),
    ...[...(state.Branches ?? []), state.ItemProcessor, state.Iterator].flatMap((nested) =>
      nested ? statesOfType(nested, type) : [],
    ),
  ]);

/** The fake Lambda ARN a substitution becomes locally. */
export const localFunctionArn = (region: string, substitution: string): string =>
  `arn:aws:lambda:${region}:${LOCAL_ACCOUNT}:function:${substitution}`;

/** The definition text with every `${substitution}` of `tasks` replaced; refuses one left over. */
export const substituteDefinition = (
  text: string,
  tasks: readonly PlanChangeTask[],
  region: string,
): StateMachineDefinition => {
  const known = new Map(
    tasks.map((task) => [task.substitution, localFunctionArn(region, task.substitution)]),
  );
  const unknown = new Set<string>();
  const substituted = text.replace(/\$\{([^}]*)\}/g, (match, key: string) => {
    const arn = known.get(key);
    if (arn === undefined) unknown.add(key);
    return arn ?? match;
  });
  if (unknown.size > 0)
    throw new Error(`the definition names substitutions no task provides: ${[...unknown].join(', ')}`);
  return JSON.parse(substituted) as StateMachineDefinition;
};

const loadHandler = async (entry: string): Promise<TaskHandler> => {
  const module = (await import(pathToFileURL(path.join(REPO_ROOT, entry)).href)) as { handler?: unknown };
  if (typeof module.handler !== 'function') throw new Error(`${entry} exports no handler`);
  return module.handler as TaskHandler;
};

const epochSeconds = (date: Date | undefined) => (date ? date.getTime() / 1000 : undefined);

const readBody = (request: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });

/**
 * The local Step Functions: an in-process HTTP server speaking the service's JSON protocol
 * (StartExecution, StopExecution, DescribeExecution), so the workflows port's SDK calls run as in
 * AWS. Executions run with aws-local-stepfunctions, each Task state calling its handler module
 * (PLAN_CHANGE_TASKS) in this process, so the tasks see this process's Clock and table.
 */
export class LocalStepFunctions {
  readonly stateMachineArn: string;
  readonly endpoint: string;
  private readonly server: Server;
  private readonly machine: StateMachine;
  private readonly taskHandlers: Record<string, (input: unknown) => Promise<unknown>>;
  private readonly waitOverrides: Record<string, number>;
  private readonly retryOverrides: Record<string, number>;
  private readonly runs = new Map<
    string,
    { execution: LocalExecution; abort: () => void; settled: Promise<LocalExecution> }
  >();
  private readonly now: () => Date;
  private readonly log: (message: string) => void;
  private readonly definition: StateMachineDefinition;
  private readonly topStates: Set<string>;
  /** Machines that start at a given state (a resumed execution's), built once each. */
  private readonly machinesFrom = new Map<string, StateMachine>();
  private readonly keptIn: string | undefined;
  /** Where each kept execution carries on from. */
  private readonly resumeAt = new Map<string, { state: string; input: unknown }>();
  /** Set by stop(): the executions it aborts stay RUNNING on disk, to be resumed by the next start. */
  private stopping = false;

  private constructor(
    server: Server,
    endpoint: string,
    prepared: ReturnType<typeof prepare>,
    options: LocalStepFunctionsOptions,
  ) {
    this.server = server;
    this.endpoint = endpoint;
    this.stateMachineArn = prepared.stateMachineArn;
    this.machine = prepared.machine;
    this.taskHandlers = prepared.taskHandlers;
    this.waitOverrides = prepared.waitOverrides;
    this.retryOverrides = prepared.retryOverrides;
    this.now = options.now ?? (() => new Date());
    this.log = options.log ?? ((message) => console.error(message));
    this.definition = prepared.definition;
    this.topStates = new Set(Object.keys((prepared.definition as AslStates).States ?? {}));
    this.keptIn = options.dataDirectory ? path.join(options.dataDirectory, 'stepfunctions') : undefined;
    this.loadKept();
  }

  private keptFile(name: string): string {
    return path.join(this.keptIn ?? '', `${encodeURIComponent(name)}.json`);
  }

  /** Writes the execution's record (to a temporary file renamed over the old: a kill mid-write keeps the old). */
  private keep(execution: LocalExecution): void {
    if (!this.keptIn) return;
    const resume = this.resumeAt.get(execution.name);
    const { startDate, stopDate: _stop, ...rest } = execution;
    const kept: KeptExecution = {
      ...rest,
      startDate: startDate.toISOString(),
      ...(execution.stopDate ? { stopDate: execution.stopDate.toISOString() } : {}),
      ...(resume ? { resume } : {}),
    };
    mkdirSync(this.keptIn, { recursive: true });
    const file = this.keptFile(execution.name);
    writeFileSync(`${file}.tmp`, JSON.stringify(kept));
    renameSync(`${file}.tmp`, file);
  }

  /** Reads the kept executions back; RUNNING ones wait for resumeKept(). */
  private loadKept(): void {
    if (!this.keptIn) return;
    let files: string[];
    try {
      files = readdirSync(this.keptIn).filter((file) => file.endsWith('.json'));
    } catch {
      return;
    }
    for (const file of files) {
      const kept = JSON.parse(readFileSync(path.join(this.keptIn, file), 'utf8')) as KeptExecution;
      const { resume, startDate: _start, stopDate: _stop, ...record } = kept;
      const execution: LocalExecution = {
        ...record,
        startDate: new Date(kept.startDate),
        ...(kept.stopDate ? { stopDate: new Date(kept.stopDate) } : {}),
      };
      if (resume) this.resumeAt.set(execution.name, resume);
      // Until resumeKept(), a RUNNING one answers as running (resumeKept replaces this run).
      this.runs.set(execution.name, {
        execution,
        abort: () => undefined,
        settled: Promise.resolve(execution),
      });
    }
  }

  /**
   * Carries every kept RUNNING execution on from the last state it entered, with that state's
   * input (call it once the tasks' environment is ready). A Task that was running when the process
   * died is entered again: the interrupted attempt is lost as a Lambda's timed-out attempt is,
   * and the state's own Retry policy covers the new one. Answers how many were resumed.
   */
  resumeKept(): number {
    let resumed = 0;
    for (const [name, run] of this.runs) {
      if (run.execution.status !== 'RUNNING' || this.stopping) continue;
      const from = this.resumeAt.get(name);
      let input: unknown;
      try {
        input = from ? from.input : JSON.parse(run.execution.input);
      } catch {
        continue;
      }
      this.launch(run.execution, input, from?.state);
      resumed++;
    }
    return resumed;
  }

  private machineFrom(state: string | undefined): StateMachine {
    if (state === undefined || state === this.definition.StartAt) return this.machine;
    let machine = this.machinesFrom.get(state);
    if (!machine) {
      // The same definition, already validated whole; from here the states before are unreachable.
      machine = new StateMachine(
        { ...this.definition, StartAt: state },
        { validationOptions: { noValidate: true } },
      );
      this.machinesFrom.set(state, machine);
    }
    return machine;
  }

  /** Checks the definition and its tasks (a Task state with no handler refuses to start), then listens. */
  static async start(options: LocalStepFunctionsOptions): Promise<LocalStepFunctions> {
    const prepared = prepare(options);
    let instance: LocalStepFunctions | undefined;
    const server = createServer((request, response) => {
      if (!instance) {
        response.writeHead(503).end();
        return;
      }
      void instance.serve(request, response);
    });
    const port = await listenOn(server, options.port ?? 0, '127.0.0.1');
    instance = new LocalStepFunctions(server, `http://127.0.0.1:${port}`, prepared, options);
    return instance;
  }

  /** The execution of that name, as DescribeExecution would show it (a copy). */
  execution(name: string): LocalExecution | undefined {
    const run = this.runs.get(name);
    return run ? { ...run.execution, entered: { ...run.execution.entered } } : undefined;
  }

  executions(): LocalExecution[] {
    return [...this.runs.keys()].flatMap((name) => this.execution(name) ?? []);
  }

  /** Resolves once the execution has ended (succeeded, failed or aborted). */
  async settled(name: string): Promise<LocalExecution> {
    const run = this.runs.get(name);
    if (!run) throw new Error(`no execution named ${name}`);
    await run.settled;
    return this.execution(name) as LocalExecution;
  }

  /** StartExecution: a running execution of the same name and input is answered again; else the name is taken. */
  startExecution(name: string, input: string): LocalExecution {
    const existing = this.runs.get(name);
    if (existing) {
      if (existing.execution.status === 'RUNNING' && existing.execution.input === input)
        return existing.execution;
      throw new ServiceError(
        'ExecutionAlreadyExists',
        `Execution Already Exists: '${existing.execution.executionArn}'`,
      );
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(input);
    } catch {
      throw new ServiceError('InvalidExecutionInput', 'Invalid State Machine Execution Input: not JSON');
    }
    const execution: LocalExecution = {
      name,
      executionArn: `${this.stateMachineArn.replace(':stateMachine:', ':execution:')}:${name}`,
      input,
      status: 'RUNNING',
      transitions: 0,
      entered: {},
      startDate: this.now(),
    };
    this.resumeAt.delete(name);
    // Kept before StartExecution answers: an execution the service accepted is never lost.
    this.keep(execution);
    this.launch(execution, parsed);
    return execution;
  }

  /** Runs `execution` from `startAt` (default the definition's start) with `input`. */
  private launch(execution: LocalExecution, input: unknown, startAt?: string): void {
    const name = execution.name;
    const run = this.machineFrom(startAt).run(input as never, {
      noThrowOnAbort: true,
      overrides: {
        taskResourceLocalHandlers: this.taskHandlers as never,
        waitTimeOverrides: this.waitOverrides,
        retryIntervalOverrides: this.retryOverrides,
      },
    });
    let failure: { error: string; cause: string } | undefined;
    const events = (async () => {
      for await (const event of run.eventLogs) {
        if (event.type === 'StateEntered') {
          execution.transitions++;
          execution.entered[event.state.name] = (execution.entered[event.state.name] ?? 0) + 1;
          if (this.topStates.has(event.state.name) && !this.stopping && execution.status === 'RUNNING') {
            this.resumeAt.set(name, { state: event.state.name, input: event.state.input });
            this.keep(execution);
          }
        } else if (event.type === 'StateFailed') {
          execution.lastStateError = {
            state: event.state.name,
            error: event.Error,
            cause: String(event.Cause),
          };
        } else if (event.type === 'ExecutionFailed') {
          failure = { error: event.Error, cause: String(event.Cause) };
        }
      }
    })();
    const settled = Promise.allSettled([run.result, events]).then(([outcome]) => {
      if (execution.status !== 'RUNNING') return execution;
      execution.stopDate = this.now();
      if (outcome?.status === 'fulfilled') {
        execution.status = 'SUCCEEDED';
        execution.output = JSON.stringify(outcome.value);
      } else {
        execution.status = 'FAILED';
        const reason = outcome?.reason as Error | undefined;
        execution.error = failure?.error ?? reason?.name ?? 'States.Runtime';
        execution.cause = failure?.cause ?? reason?.message ?? '';
        this.log(
          `local Step Functions: execution ${name} FAILED: ${execution.error}: ${execution.cause} (after ${execution.transitions} transitions)`,
        );
      }
      this.resumeAt.delete(name);
      this.keep(execution);
      return execution;
    });
    this.runs.set(name, { execution, abort: run.abort, settled });
  }

  /** StopExecution: aborts a running execution (a Wait ends at once; a running task finishes first). */
  stopExecution(executionArn: string, error?: string, cause?: string): LocalExecution {
    const run = this.runByArn(executionArn);
    if (run.execution.status === 'RUNNING') {
      run.execution.status = 'ABORTED';
      run.execution.stopDate = this.now();
      if (error !== undefined) run.execution.error = error;
      if (cause !== undefined) run.execution.cause = cause;
      run.abort();
      // Not when the process stops: its executions carry on at the next start, as the service's do.
      if (!this.stopping) {
        this.resumeAt.delete(run.execution.name);
        this.keep(run.execution);
      }
    }
    return run.execution;
  }

  /**
   * Aborts every running execution (in this process) and closes the server. Kept executions stay
   * RUNNING on disk, and the next start on the same folder resumes them.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const run of this.runs.values()) {
      if (run.execution.status === 'RUNNING')
        this.stopExecution(run.execution.executionArn, 'States.Aborted');
    }
    await closeServer(this.server);
    await Promise.allSettled([...this.runs.values()].map((run) => run.settled));
  }

  private runByArn(executionArn: string) {
    const prefix = `${this.stateMachineArn.replace(':stateMachine:', ':execution:')}:`;
    const run = executionArn.startsWith(prefix)
      ? this.runs.get(executionArn.slice(prefix.length))
      : undefined;
    if (!run) throw new ServiceError('ExecutionDoesNotExist', `Execution Does Not Exist: '${executionArn}'`);
    return run;
  }

  private describe(executionArn: string) {
    const { execution } = this.runByArn(executionArn);
    return {
      executionArn: execution.executionArn,
      stateMachineArn: this.stateMachineArn,
      name: execution.name,
      status: execution.status,
      startDate: epochSeconds(execution.startDate),
      stopDate: epochSeconds(execution.stopDate),
      input: execution.input,
      output: execution.output,
      error: execution.error,
      cause: execution.cause,
    };
  }

  private answer(target: string, request: Record<string, unknown>): unknown {
    const text = (key: string) => (typeof request[key] === 'string' ? (request[key] as string) : undefined);
    switch (target) {
      case 'StartExecution': {
        if (text('stateMachineArn') !== this.stateMachineArn)
          throw new ServiceError(
            'StateMachineDoesNotExist',
            `State Machine Does Not Exist: '${text('stateMachineArn')}'`,
          );
        const execution = this.startExecution(text('name') ?? randomUUID(), text('input') ?? '{}');
        return { executionArn: execution.executionArn, startDate: epochSeconds(execution.startDate) };
      }
      case 'StopExecution': {
        const execution = this.stopExecution(text('executionArn') ?? '', text('error'), text('cause'));
        return { stopDate: epochSeconds(execution.stopDate) };
      }
      case 'DescribeExecution':
        return this.describe(text('executionArn') ?? '');
      default:
        throw new ServiceError('UnknownOperationException', `the local Step Functions does not do ${target}`);
    }
  }

  private async serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const reply = (status: number, body: unknown, errorType?: string) => {
      response
        .writeHead(status, {
          'content-type': 'application/x-amz-json-1.0',
          'x-amzn-requestid': randomUUID(),
          ...(errorType ? { 'x-amzn-errortype': errorType } : {}),
        })
        .end(JSON.stringify(body));
    };
    try {
      const target = String(request.headers['x-amz-target'] ?? '');
      const body = await readBody(request);
      const parsed = (body ? JSON.parse(body) : {}) as Record<string, unknown>;
      if (!target.startsWith('AWSStepFunctions.'))
        throw new ServiceError('UnknownOperationException', `unknown target ${target}`);
      reply(200, this.answer(target.slice('AWSStepFunctions.'.length), parsed));
    } catch (error) {
      if (error instanceof ServiceError)
        reply(400, { __type: error.type, message: error.message }, error.type);
      else reply(500, { __type: 'InternalFailure', message: String(error) }, 'InternalFailure');
    }
  }
}

/** Reads and checks the definition, and maps each of its Task states to a handler. */
const prepare = (options: LocalStepFunctionsOptions) => {
  const tasks = options.tasks ?? PLAN_CHANGE_TASKS;
  const text =
    options.definition === undefined
      ? readFileSync(path.join(REPO_ROOT, PLAN_CHANGE_DEFINITION_FILE), 'utf8')
      : typeof options.definition === 'string'
        ? options.definition
        : JSON.stringify(options.definition);
  const definition = substituteDefinition(text, tasks, options.region);
  const taskStates = statesOfType(definition as AslStates, 'Task');
  const unmapped = taskStates.filter(
    (state) => !options.handlers?.[state] && !tasks.some((task) => task.state === state),
  );
  if (unmapped.length > 0)
    throw new Error(
      `the local Step Functions cannot run Task state(s) ${unmapped.join(', ')}: no handler in PLAN_CHANGE_TASKS (lib/plan-change-tasks.ts)`,
    );
  // Validates the definition (aws-local-stepfunctions runs asl-validator).
  const machine = new StateMachine(definition);
  const taskHandlers: Record<string, (input: unknown) => Promise<unknown>> = {};
  for (const state of taskStates) {
    const entry = tasks.find((task) => task.state === state)?.entry;
    const override = options.handlers?.[state];
    let loaded: Promise<TaskHandler> | undefined;
    const handler = (): Promise<TaskHandler> => {
      if (override) return Promise.resolve(override);
      loaded ??= loadHandler(entry as string);
      return loaded;
    };
    taskHandlers[state] = async (input) => {
      await options.beforeTask?.(state, input as PlanChangeExecution);
      return (await handler())(input as PlanChangeExecution);
    };
  }
  const waitMs = options.waitMs ?? 200;
  const retryMs = options.retryMs ?? 0;
  return {
    machine,
    definition,
    taskHandlers,
    waitOverrides: Object.fromEntries(statesOfType(definition as AslStates, 'Wait').map((s) => [s, waitMs])),
    retryOverrides: Object.fromEntries(taskStates.map((s) => [s, retryMs])),
    stateMachineArn: `arn:aws:states:${options.region}:${LOCAL_ACCOUNT}:stateMachine:${options.stateMachineName ?? LOCAL_PLAN_CHANGE_STATE_MACHINE_NAME}`,
  };
};

/** Starts the local Step Functions (see LocalStepFunctions). */
export const startLocalStepFunctions = (options: LocalStepFunctionsOptions): Promise<LocalStepFunctions> =>
  LocalStepFunctions.start(options);
