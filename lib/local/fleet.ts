/**
 * The reference Dispatcher, locally: a fleet simulator that runs one simulated Dispatcher per
 * Stack over the same HTTP contract a real one uses (docs/dispatcher.md): it reads the desired
 * state (with ETag), applies it, carries out a Plan Change's steps, and reports the observed
 * state. It validates the Stack's Credentials the desired state lists (valid unless told
 * otherwise per Credential) and asks for Threads and Guide Sessions. Tests and the README start and
 * finish simulated runs, inject faults, set validation answers and ask for Threads through
 * `/_local/fleet/...`. It calls the Dispatcher routes through the typed client a tenant app uses
 * (lib/client): its bearer credential, its retries of 429 and 503 after Retry-After, and the
 * document's types for what it sends and reads.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { OperationReport } from '../../functions/core/dispatcher.ts';
import { type ApiClient, createClient, type paths, Refusal } from '../client/index.ts';
import { StackData, type ThreadSeed } from './stack-data.ts';
import { packArchive, partSizeFor, stageArchive, uploadInParts } from './stack-export.ts';

/** Standing faults of a whole Dispatcher (until changed): silent, unhealthy, or applying nothing. */
export const FLEET_FAULTS = ['stop_reporting', 'unhealthy', 'fail_operation'] as const;
export type FleetFault = (typeof FLEET_FAULTS)[number];

/** The Plan Change steps a fault can hit, and what it does to the step. */
export const FAULT_STEPS = ['drain', 'backup', 'switch', 'verify'] as const;
export type FaultStep = (typeof FAULT_STEPS)[number];
export const STEP_FAULT_KINDS = ['fail', 'delay'] as const;
export type StepFaultKind = (typeof STEP_FAULT_KINDS)[number];

/**
 * A fault of one Plan Change step. `fail`: the step reports `failed` with `reason` (a `drain` never
 * ends instead: active runs do not finish). `delay`: the step takes `polls` more polls (default 1)
 * before it is carried out (for `drain`: before the paused version is applied). A fault hits the
 * next occurrence of its step only, unless `sticky`; a new fault for a step replaces a pending one.
 */
export interface StepFault {
  step: FaultStep;
  kind: StepFaultKind;
  polls?: number;
  reason?: string;
  sticky?: boolean;
}

/** The desired state as the API documents it (the client's types, from docs/api/openapi.json). */
type DesiredDocument =
  paths['/v1/dispatcher/desired-state']['get']['responses'][200]['content']['application/json'];

/** An export the Dispatcher works on or worked on. */
export interface ExportWork {
  id: string;
  state: 'building' | 'ready' | 'failed';
  /** The archive's size, once uploaded. */
  sizeBytes?: number;
  parts?: number;
  /** Why it failed. */
  reason?: string;
  /** The control plane's answer to the outcome (`200`, or a refusal). */
  status?: number;
}

/** What the simulated Dispatcher concludes when it checks a Credential with its provider. */
export interface ValidationAnswer {
  outcome: 'valid' | 'invalid';
  reason?: string;
}

/** A validation it reported (never the material it read). */
export interface ValidationReport {
  name: string;
  version: number;
  outcome: 'valid' | 'invalid';
  reason?: string;
  /** The control plane's answer: `200`, or `409 stale_version` (a rotation came first) and so on. */
  status: number;
}

/** A Thread or Guide Session request, as the Dispatcher sends it. */
export interface ThreadRequest {
  threadId: string;
  projectId: string;
  activity: 'intake' | 'dispatch';
  model?: string;
  effort?: 'low' | 'medium' | 'high';
}
export type GuideSessionRequest = Omit<ThreadRequest, 'projectId' | 'activity'>;

/** The control plane's answer, relayed as is (it carries the material: the caller's to use, not kept here). */
export interface ControlPlaneAnswer {
  status: number;
  body: unknown;
}

/** The Plan Change step the Dispatcher is on (one per operation id and step). */
interface StepWork {
  id: string;
  step: FaultStep;
  fault: StepFault | null;
  /** Polls still to wait before the step is carried out (a `delay` fault). */
  pollsLeft: number;
  state: 'in_progress' | 'done' | 'failed';
}

export interface DispatcherStatus {
  dispatcherId: string;
  stack: string | null;
  desiredVersion: number | null;
  appliedVersion: number;
  admission: string | null;
  runCap: number | null;
  activeRuns: number;
  health: 'healthy' | 'unhealthy' | 'unknown';
  fault: FleetFault | null;
  localHostExecutor: boolean;
  tornDown: boolean;
  /** Where the Dispatcher knows it runs (null: not told at start, and no switch yet). */
  location: string | null;
  /** The Plan Change step it is on, if any. */
  operation: { id: string; step: FaultStep; state: StepWork['state']; pollsLeft: number } | null;
  /** The step faults not used yet. */
  pendingFaults: StepFault[];
  /** The operation outcome it reports (the last one, on every poll). */
  lastOperation: OperationReport | null;
  /** The validation answers set for it, per Credential name (sticky until changed). */
  validationAnswers: Record<string, ValidationAnswer>;
  /** The validations it reported, the last per Credential name. */
  validations: ValidationReport[];
  /** The exports it built (or is building), oldest first. */
  exports: ExportWork[];
  lastError: string | null;
}

/** What the control plane answered: its status and body, a refusal's included (the client throws those). */
interface Answer<T> {
  status: number;
  ok: boolean;
  /** The typed answer of a 2xx. */
  data: T | undefined;
  /** The body as it came, a refusal's included. */
  body: unknown;
  headers: Headers | undefined;
}

/** Reads a client call's answer, a refusal (a `Refusal` thrown by the client) as its status and body. */
const answerOf = async <T>(
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<Answer<T>> => {
  try {
    const { data, error, response } = await call;
    const ok = response.ok ? data : undefined;
    return {
      status: response.status,
      ok: response.ok,
      data: ok,
      body: ok ?? error,
      headers: response.headers,
    };
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    return { status: error.status, ok: false, data: undefined, body: error.body, headers: undefined };
  }
};

const DEFAULT_REASONS: Record<FaultStep, string> = {
  drain: 'simulated fault: active runs do not finish',
  backup: 'simulated fault: the final backup failed',
  switch: 'simulated fault: the replacement could not be created',
  verify: 'simulated fault: the replacement did not report healthy',
};

class SimulatedDispatcher {
  readonly id: string;
  /** The typed client, with the Stack's credential as its bearer token (the API's URL per call). */
  private readonly api: ApiClient;
  readonly localHostExecutor: boolean;
  private etag: string | undefined;
  private desired: DesiredDocument | undefined;
  /** The desired state it now runs (its admission gate follows this one). */
  private applied: DesiredDocument | undefined;
  private inFlight: Promise<void> | undefined;
  /** The last observed state the control plane took (its JSON) and when, for change + heartbeat. */
  private lastReport: { body: string; at: number } | undefined;
  /** Observed-state reports sent, and polls that sent none (nothing changed, no heartbeat due). */
  reportsSent = 0;
  reportsSkipped = 0;
  private work: StepWork | null = null;
  private pending: StepFault[] = [];
  private location: string | null;
  appliedVersion = 0;
  activeRuns = 0;
  fault: FleetFault | null = null;
  tornDown = false;
  lastOperation: OperationReport | null = null;
  lastError: string | null = null;
  private readonly answers = new Map<string, ValidationAnswer>();
  /** The last validation reported per Credential name (a version not reported yet is checked). */
  private readonly validated = new Map<string, ValidationReport>();
  /** Exports by id: each one is built once. */
  private readonly exports = new Map<string, { work: ExportWork; done: Promise<void> }>();
  /** The reason the next export fails with (a fault), if any. */
  exportFault: string | null = null;
  private readonly dataRoot: () => string;
  private readonly now: () => Date;
  private stackData: StackData | undefined;

  constructor(
    id: string,
    credential: string,
    options: {
      localHostExecutor: boolean;
      location: string | null;
      /** Where the Stacks' data live (made when first needed). */
      dataRoot: () => string;
      now: () => Date;
    },
  ) {
    this.id = id;
    this.api = createClient({ baseUrl: 'http://unset.invalid', token: credential });
    this.localHostExecutor = options.localHostExecutor;
    this.location = options.location;
    this.dataRoot = options.dataRoot;
    this.now = options.now;
  }

  /** The Stack's data (journal and Thread repositories), in `<data root>/<Stack name>`. */
  data(): StackData {
    const stack = this.desired?.stack;
    if (!stack) throw new Error('the Dispatcher has not read its desired state yet');
    this.stackData ??= new StackData(path.join(this.dataRoot(), stack));
    return this.stackData;
  }

  /** Seeds the Stack's data: journal events, and Threads with shipped and unshipped commits. */
  async seed(params: {
    events?: number;
    threads?: ThreadSeed[];
  }): Promise<{ events: number; threads: number }> {
    const data = this.data();
    for (let n = 0; n < (params.events ?? 0); n++)
      data.append('run_step', { n, note: 'seeded by the reference Dispatcher' }, this.now());
    for (const thread of params.threads ?? []) await data.addThread(thread, this.now());
    return { events: data.eventCount(), threads: data.threads().length };
  }

  /** Resolves once the export has been built and reported (or failed); undefined for an unknown id. */
  exportDone(exportId: string): Promise<void> | undefined {
    return this.exports.get(exportId)?.done;
  }

  /** Starts the desired state's export (once per id); it runs beside the polls. */
  private startExport(apiUrl: string, desired: DesiredDocument): void {
    const wanted = desired.export;
    if (!wanted || this.exports.has(wanted.id)) return;
    const work: ExportWork = { id: wanted.id, state: 'building' };
    const done = this.buildExport(apiUrl, desired.stack, wanted, work).catch((error: unknown) => {
      work.state = 'failed';
      work.reason = (error as Error).message;
      this.lastError = `export ${wanted.id}: ${work.reason}`;
    });
    this.exports.set(wanted.id, { work, done });
  }

  /** Stages, packs and uploads the archive, then reports the outcome. */
  private async buildExport(
    apiUrl: string,
    stack: string,
    wanted: { id: string; requestedAt: string },
    work: ExportWork,
  ): Promise<void> {
    const exportId = { path: { exportId: wanted.id } };
    type Outcome =
      paths['/v1/dispatcher/exports/{exportId}/outcome']['post']['requestBody']['content']['application/json'];
    const outcome = (body: Outcome) =>
      answerOf(
        this.api.POST('/v1/dispatcher/exports/{exportId}/outcome', {
          baseUrl: apiUrl,
          params: exportId,
          body,
        }),
      );
    const fault = this.exportFault;
    if (fault !== null) {
      this.exportFault = null;
      work.state = 'failed';
      work.reason = fault;
      work.status = (await outcome({ outcome: 'failed', reason: fault })).status;
      return;
    }
    const data = this.data();
    const staged = await stageArchive(
      data,
      { exportId: wanted.id, stack, requestedAt: wanted.requestedAt, now: this.now },
      path.join(data.root, '.exports', wanted.id),
    );
    try {
      const uploaded = await uploadInParts(
        packArchive(staged),
        partSizeFor(staged.tarBytes),
        async (partNumbers) => {
          const answer = await answerOf(
            this.api.POST('/v1/dispatcher/exports/{exportId}/parts', {
              baseUrl: apiUrl,
              params: exportId,
              body: { partNumbers },
            }),
          );
          if (!answer.data)
            throw new Error(`part URLs answered ${answer.status}: ${JSON.stringify(answer.body)}`);
          return answer.data.parts;
        },
      );
      const answer = await outcome({
        outcome: 'ready',
        sizeBytes: uploaded.sizeBytes,
        parts: uploaded.parts,
      });
      work.status = answer.status;
      work.sizeBytes = uploaded.sizeBytes;
      work.parts = uploaded.parts.length;
      work.state = answer.ok ? 'ready' : 'failed';
      if (!answer.ok) work.reason = `the outcome answered ${answer.status}: ${JSON.stringify(answer.body)}`;
    } catch (error) {
      const reason = (error as Error).message.slice(0, 500);
      work.status = (await outcome({ outcome: 'failed', reason })).status;
      throw error;
    } finally {
      staged.cleanUp();
    }
  }

  get stackName(): string | null {
    return this.desired?.stack ?? null;
  }

  /** One poll (a poll asked for while one runs is that same poll: steps count real polls). */
  poll(apiUrl: string, now: Date): Promise<void> {
    this.inFlight ??= this.pollOnce(apiUrl, now).finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  /** Read the desired state, apply it and carry out its step (unless a fault says otherwise), report. */
  private async pollOnce(apiUrl: string, now: Date): Promise<void> {
    const read = await answerOf(
      this.api.GET('/v1/dispatcher/desired-state', {
        baseUrl: apiUrl,
        params: { header: this.etag ? { 'If-None-Match': this.etag } : {} },
      }),
    );
    if (read.status === 200) {
      this.desired = read.data;
      this.etag = read.headers?.get('etag') ?? undefined;
    } else if (read.status !== 304) {
      this.lastError = `desired state answered ${read.status}`;
      return;
    }
    const desired = this.desired;
    if (!desired) return;
    // Applying: a failed operation leaves the previous version in place.
    if (this.fault !== 'fail_operation' && this.carryOut(desired)) {
      this.appliedVersion = desired.version;
      this.applied = desired;
      const teardownDue =
        desired.lifecycle === 'torn_down' ||
        (desired.lifecycle === 'decommissioning' &&
          desired.teardown_at !== undefined &&
          Date.parse(desired.teardown_at) <= now.getTime());
      if (teardownDue) {
        this.tornDown = true;
        this.activeRuns = 0;
      }
    }
    if (this.fault === 'stop_reporting') return;
    // An export is built beside the polls (it may take a while); each id once.
    if (!this.tornDown) this.startExport(apiUrl, desired);
    await this.validateCredentials(apiUrl, desired);
    const observed = {
      appliedVersion: this.appliedVersion,
      health: this.health(),
      activeRuns: this.activeRuns,
      localHostExecutor: this.localHostExecutor,
      tornDown: this.tornDown,
      ...(this.lastOperation ? { operation: this.lastOperation } : {}),
    };
    const body = JSON.stringify(observed);
    // Sent when it changed, while work is in flight (an operation, an export, a new desired state
    // read), and as a heartbeat otherwise; an idle Stack's poll is one 304 and nothing else.
    const heartbeatMs = (desired.heartbeat_seconds ?? 7200) * 1000;
    const due =
      read.status === 200 ||
      desired.operation !== undefined ||
      desired.export !== undefined ||
      this.lastReport === undefined ||
      this.lastReport.body !== body ||
      now.getTime() - this.lastReport.at >= heartbeatMs;
    if (!due) {
      this.reportsSkipped += 1;
      return;
    }
    const report = await answerOf(
      this.api.PUT('/v1/dispatcher/observed-state', { baseUrl: apiUrl, body: observed }),
    );
    this.reportsSent += 1;
    this.lastReport = report.ok ? { body, at: now.getTime() } : undefined;
    this.lastError = report.ok ? null : `observed state answered ${report.status}`;
  }

  /**
   * Works on the desired state's Plan Change step, if any; says whether the desired version is
   * applied now (not while a delayed step is still under way).
   */
  private carryOut(desired: DesiredDocument): boolean {
    const operation = desired.operation;
    if (!operation) {
      this.work = null;
      return true;
    }
    if (this.work?.id !== operation.id || this.work.step !== operation.step) {
      const fault = this.takeFault(operation.step);
      this.work = {
        id: operation.id,
        step: operation.step,
        fault,
        pollsLeft: fault?.kind === 'delay' ? (fault.polls ?? 1) : 0,
        state: 'in_progress',
      };
    }
    const work = this.work;
    if (work.state !== 'in_progress') return true;
    if (work.pollsLeft > 0) {
      work.pollsLeft -= 1;
      return false;
    }
    const failed = work.fault?.kind === 'fail';
    work.state = failed ? 'failed' : 'done';
    if (operation.step === 'drain') return true; // admission is paused; a failed drain holds its runs
    const reason = failed ? { reason: work.fault?.reason ?? DEFAULT_REASONS[operation.step] } : {};
    let addressChanged: { addressChanged: boolean } | Record<string, never> = {};
    if (operation.step === 'switch' && !failed) {
      // The public address moves with the Stack within a location and changes across locations; a
      // Dispatcher that does not know where it ran says it changed (the tenant is told, needlessly
      // at worst).
      addressChanged = { addressChanged: this.location !== operation.target.location };
      this.location = operation.target.location;
    }
    this.lastOperation = {
      id: operation.id,
      step: operation.step,
      outcome: failed ? 'failed' : 'done',
      ...reason,
      ...addressChanged,
    };
    return true;
  }

  /**
   * Checks each Credential the desired state lists that it has not validated at that version:
   * reads the material, decides (the answer set for that name, `valid` by default) and reports the
   * verdict. The material lives only inside this call: never logged, never kept.
   */
  private async validateCredentials(apiUrl: string, desired: DesiredDocument): Promise<void> {
    for (const { name, version } of desired.credentials ?? []) {
      if (this.validated.get(name)?.version === version) continue;
      const params = { path: { name } };
      const read = await answerOf(
        this.api.GET('/v1/dispatcher/credentials/{name}', { baseUrl: apiUrl, params }),
      );
      if (read.status === 404) continue; // deleted meanwhile: nothing to validate
      if (!read.data) {
        this.lastError = `credential ${name} answered ${read.status}`;
        continue;
      }
      // What a real Dispatcher would hand the provider; the simulation only needs to have read it.
      const material = read.data;
      const answer = this.answers.get(name) ?? { outcome: 'valid' };
      const verdict = {
        version: material.version,
        outcome: answer.outcome,
        ...(answer.reason !== undefined ? { reason: answer.reason } : {}),
      };
      const posted = await answerOf(
        this.api.POST('/v1/dispatcher/credentials/{name}/validation', {
          baseUrl: apiUrl,
          params,
          body: verdict,
        }),
      );
      // A refused verdict (409 stale_version: a rotation came first) is not retried for that version.
      this.validated.set(name, { name, ...verdict, status: posted.status });
      if (!posted.ok && posted.status !== 409)
        this.lastError = `validation of ${name} answered ${posted.status}`;
    }
  }

  setValidationAnswer(name: string, answer: ValidationAnswer): void {
    this.answers.set(name, { ...answer });
  }

  /** Asks the control plane for a new Thread (or the same one again) and relays its answer. */
  async createThread(apiUrl: string, request: ThreadRequest): Promise<ControlPlaneAnswer> {
    const { status, body } = await answerOf(
      this.api.POST('/v1/dispatcher/threads', { baseUrl: apiUrl, body: request }),
    );
    return { status, body };
  }

  /** Asks the control plane for a Guide Session and relays its answer. */
  async startGuideSession(apiUrl: string, request: GuideSessionRequest): Promise<ControlPlaneAnswer> {
    const { status, body } = await answerOf(
      this.api.POST('/v1/dispatcher/guide-sessions', { baseUrl: apiUrl, body: request }),
    );
    return { status, body };
  }

  private takeFault(step: FaultStep): StepFault | null {
    const index = this.pending.findIndex((fault) => fault.step === step);
    const fault = this.pending[index];
    if (!fault) return null;
    if (!fault.sticky) this.pending.splice(index, 1);
    return fault;
  }

  injectFault(fault: StepFault): void {
    this.pending = [...this.pending.filter((pending) => pending.step !== fault.step), { ...fault }];
  }

  /** No fault any more: none pending, no standing fault, and the step under way goes on normally. */
  clearFaults(): void {
    this.pending = [];
    this.fault = null;
    if (this.work) {
      this.work.fault = null;
      this.work.pollsLeft = 0;
    }
  }

  health(): 'healthy' | 'unhealthy' | 'unknown' {
    if (this.fault === 'unhealthy' || this.fault === 'fail_operation') return 'unhealthy';
    // The replacement is being created or has not shown it is healthy yet; after `verify`, it has.
    if (this.work?.step === 'verify' && this.work.state === 'failed') return 'unhealthy';
    if ((this.work?.step === 'switch' || this.work?.step === 'verify') && this.work.state === 'in_progress')
      return 'unknown';
    return 'healthy';
  }

  /** Starts runs through the admission gate: only while admission is open, never above run_cap. */
  startRuns(count: number): { started: number; refused: number } {
    const open = this.applied?.admission === 'open' && !this.tornDown;
    const room = open ? Math.max(0, (this.applied?.run_cap ?? 0) - this.activeRuns) : 0;
    const started = Math.min(room, count);
    this.activeRuns += started;
    return { started, refused: count - started };
  }

  /** Finishes runs; while a drain fails (a `fail` fault), runs never finish. */
  finishRuns(count: number): number {
    if (this.work?.step === 'drain' && this.work.fault?.kind === 'fail') return 0;
    const finished = Math.min(this.activeRuns, count);
    this.activeRuns -= finished;
    return finished;
  }

  status(): DispatcherStatus {
    return {
      dispatcherId: this.id,
      stack: this.desired?.stack ?? null,
      desiredVersion: this.desired?.version ?? null,
      appliedVersion: this.appliedVersion,
      admission: this.applied?.admission ?? null,
      runCap: this.applied?.run_cap ?? null,
      activeRuns: this.activeRuns,
      health: this.health(),
      fault: this.fault,
      localHostExecutor: this.localHostExecutor,
      tornDown: this.tornDown,
      location: this.location,
      operation: this.work
        ? { id: this.work.id, step: this.work.step, state: this.work.state, pollsLeft: this.work.pollsLeft }
        : null,
      pendingFaults: this.pending.map((fault) => ({ ...fault })),
      lastOperation: this.lastOperation,
      validationAnswers: Object.fromEntries([...this.answers].map(([name, answer]) => [name, { ...answer }])),
      validations: [...this.validated.values()].map((report) => ({ ...report })),
      exports: [...this.exports.values()].map(({ work }) => ({ ...work })),
      lastError: this.lastError,
    };
  }
}

export class FleetSimulator {
  private readonly dispatchers = new Map<string, SimulatedDispatcher>();
  private sequence = 0;
  private readonly apiUrl: () => string;
  private readonly now: () => Date;
  private timer: NodeJS.Timeout | undefined;
  private readonly dataDirectory: string | undefined;
  private dataRoot: string | undefined;

  /**
   * `dataDirectory`: where the Stacks' data (journals, Thread repositories) live; a temporary
   * folder when absent.
   */
  constructor(apiUrl: () => string, now: () => Date, options: { dataDirectory?: string } = {}) {
    this.apiUrl = apiUrl;
    this.now = now;
    this.dataDirectory = options.dataDirectory;
  }

  private root(): string {
    if (this.dataRoot === undefined) {
      if (this.dataDirectory === undefined) {
        // A temporary folder of the Stacks' journals and repositories goes with the process.
        const temporary = mkdtempSync(path.join(tmpdir(), 'stack-fleet-'));
        process.once('exit', () => rmSync(temporary, { recursive: true, force: true }));
        this.dataRoot = temporary;
      } else this.dataRoot = this.dataDirectory;
    }
    return this.dataRoot;
  }

  /**
   * Starts a simulated Dispatcher with a Stack's credential; its first poll happens at once.
   * `location`: where it runs (a `switch` elsewhere reports `addressChanged`); unknown by default.
   */
  async start(
    credential: string,
    options: { localHostExecutor?: boolean; location?: string } = {},
  ): Promise<DispatcherStatus> {
    this.sequence += 1;
    const dispatcher = new SimulatedDispatcher(`dsp-${this.sequence}`, credential, {
      localHostExecutor: options.localHostExecutor ?? false,
      location: options.location ?? null,
      dataRoot: () => this.root(),
      now: this.now,
    });
    await dispatcher.poll(this.apiUrl(), this.now());
    if (dispatcher.lastError) throw new Error(`the Dispatcher could not start: ${dispatcher.lastError}`);
    this.dispatchers.set(dispatcher.id, dispatcher);
    return dispatcher.status();
  }

  get(id: string): SimulatedDispatcher | undefined {
    return this.dispatchers.get(id);
  }

  /** A Dispatcher by its id, or by its Stack's name (the one started last for that Stack). */
  find(dispatcherIdOrStackName: string): SimulatedDispatcher | undefined {
    const byId = this.dispatchers.get(dispatcherIdOrStackName);
    if (byId) return byId;
    let found: SimulatedDispatcher | undefined;
    for (const dispatcher of this.dispatchers.values())
      if (dispatcher.stackName === dispatcherIdOrStackName) found = dispatcher;
    return found;
  }

  /** Adds a step fault to a Dispatcher; undefined when there is no such Dispatcher. */
  injectFault(dispatcherIdOrStackName: string, fault: StepFault): DispatcherStatus | undefined {
    const dispatcher = this.find(dispatcherIdOrStackName);
    dispatcher?.injectFault(fault);
    return dispatcher?.status();
  }

  /** Clears every fault of a Dispatcher; undefined when there is no such Dispatcher. */
  clearFaults(dispatcherIdOrStackName: string): DispatcherStatus | undefined {
    const dispatcher = this.find(dispatcherIdOrStackName);
    dispatcher?.clearFaults();
    return dispatcher?.status();
  }

  /**
   * What a Dispatcher concludes of a Credential when it validates it (`valid` unless set), for
   * every later validation of that name until changed; undefined when there is no such Dispatcher.
   */
  setValidationAnswer(
    dispatcherIdOrStackName: string,
    name: string,
    answer: ValidationAnswer,
  ): DispatcherStatus | undefined {
    const dispatcher = this.find(dispatcherIdOrStackName);
    dispatcher?.setValidationAnswer(name, answer);
    return dispatcher?.status();
  }

  /** A Dispatcher asks for a Thread; undefined when there is no such Dispatcher. */
  async createThread(
    dispatcherIdOrStackName: string,
    request: ThreadRequest,
  ): Promise<ControlPlaneAnswer | undefined> {
    return this.find(dispatcherIdOrStackName)?.createThread(this.apiUrl(), request);
  }

  /** A Dispatcher asks for a Guide Session; undefined when there is no such Dispatcher. */
  async startGuideSession(
    dispatcherIdOrStackName: string,
    request: GuideSessionRequest,
  ): Promise<ControlPlaneAnswer | undefined> {
    return this.find(dispatcherIdOrStackName)?.startGuideSession(this.apiUrl(), request);
  }

  /** One Dispatcher's state: pending faults, the step it is on, the operation outcome it reports. */
  status(dispatcherIdOrStackName: string): DispatcherStatus | undefined {
    return this.find(dispatcherIdOrStackName)?.status();
  }

  /**
   * Every simulated Dispatcher polls once (what each does on its own schedule in the cloud), or only
   * the ones named (a test steps its own Stacks and leaves the others of a shared server alone).
   * Answers the state of those that polled.
   */
  async tick(dispatcherIds?: readonly string[]): Promise<DispatcherStatus[]> {
    const polling = dispatcherIds
      ? dispatcherIds.flatMap((id) => this.dispatchers.get(id) ?? [])
      : [...this.dispatchers.values()];
    for (const dispatcher of polling) {
      await dispatcher.poll(this.apiUrl(), this.now()).catch((error: unknown) => {
        dispatcher.lastError = (error as Error).message;
      });
    }
    return polling.map((dispatcher) => dispatcher.status());
  }

  list(): DispatcherStatus[] {
    return [...this.dispatchers.values()].map((dispatcher) => dispatcher.status());
  }

  /** Polls every `seconds` on its own (npm start); tests tick by hand. */
  startTicker(seconds: number): void {
    this.timer = setInterval(() => void this.tick(), seconds * 1000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Removes the Stacks' data when they live in a temporary folder of this simulator's own. */
  removeTemporaryData(): void {
    if (this.dataDirectory === undefined && this.dataRoot !== undefined)
      rmSync(this.dataRoot, { recursive: true, force: true });
    this.dataRoot = undefined;
  }
}
