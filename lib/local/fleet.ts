/**
 * The reference Dispatcher, locally: a fleet simulator that runs one simulated Dispatcher per
 * Stack over the same HTTP contract a real one uses (docs/dispatcher.md): it reads the desired
 * state (with ETag), applies it, and reports the observed state. Tests and the README start and
 * finish simulated runs and inject faults through `/_local/fleet/...`.
 */

export const FLEET_FAULTS = ['stop_reporting', 'unhealthy', 'fail_operation'] as const;
export type FleetFault = (typeof FLEET_FAULTS)[number];

interface DesiredDocument {
  version: number;
  stack: string;
  plan: string;
  run_cap: number;
  admission: 'open' | 'paused' | 'closed';
  lifecycle: 'running' | 'decommissioning' | 'torn_down';
  teardown_at?: string;
  poll_after_seconds: number;
}

export interface DispatcherStatus {
  dispatcherId: string;
  stack: string | null;
  desiredVersion: number | null;
  appliedVersion: number;
  admission: string | null;
  runCap: number | null;
  activeRuns: number;
  health: 'healthy' | 'unhealthy';
  fault: FleetFault | null;
  localHostExecutor: boolean;
  tornDown: boolean;
  lastError: string | null;
}

class SimulatedDispatcher {
  readonly id: string;
  private readonly credential: string;
  readonly localHostExecutor: boolean;
  private etag: string | undefined;
  private desired: DesiredDocument | undefined;
  appliedVersion = 0;
  activeRuns = 0;
  fault: FleetFault | null = null;
  tornDown = false;
  lastError: string | null = null;

  constructor(id: string, credential: string, localHostExecutor: boolean) {
    this.id = id;
    this.credential = credential;
    this.localHostExecutor = localHostExecutor;
  }

  private request(
    apiUrl: string,
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) {
    return fetch(`${apiUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.credential}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  }

  /** One poll: read the desired state, apply it (unless a fault says otherwise), report. */
  async poll(apiUrl: string, now: Date): Promise<void> {
    const read = await this.request(apiUrl, 'GET', '/v1/dispatcher/desired-state', undefined, {
      ...(this.etag ? { 'if-none-match': this.etag } : {}),
    });
    if (read.status === 200) {
      this.desired = (await read.json()) as DesiredDocument;
      this.etag = read.headers.get('etag') ?? undefined;
    } else if (read.status !== 304) {
      this.lastError = `desired state answered ${read.status}`;
      return;
    }
    const desired = this.desired;
    if (!desired) return;
    // Applying: a failed operation leaves the previous version in place.
    if (this.fault !== 'fail_operation') {
      this.appliedVersion = desired.version;
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
    const report = await this.request(apiUrl, 'PUT', '/v1/dispatcher/observed-state', {
      appliedVersion: this.appliedVersion,
      health: this.health(),
      activeRuns: this.activeRuns,
      localHostExecutor: this.localHostExecutor,
      tornDown: this.tornDown,
    });
    this.lastError = report.ok ? null : `observed state answered ${report.status}`;
  }

  health(): 'healthy' | 'unhealthy' {
    return this.fault === 'unhealthy' || this.fault === 'fail_operation' ? 'unhealthy' : 'healthy';
  }

  /** Starts runs through the admission gate: only while admission is open, never above run_cap. */
  startRuns(count: number): { started: number; refused: number } {
    const open = this.desired?.admission === 'open' && !this.tornDown;
    const room = open ? Math.max(0, (this.desired?.run_cap ?? 0) - this.activeRuns) : 0;
    const started = Math.min(room, count);
    this.activeRuns += started;
    return { started, refused: count - started };
  }

  finishRuns(count: number): number {
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
      admission: this.desired?.admission ?? null,
      runCap: this.desired?.run_cap ?? null,
      activeRuns: this.activeRuns,
      health: this.health(),
      fault: this.fault,
      localHostExecutor: this.localHostExecutor,
      tornDown: this.tornDown,
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

  constructor(apiUrl: () => string, now: () => Date) {
    this.apiUrl = apiUrl;
    this.now = now;
  }

  /** Starts a simulated Dispatcher with a Stack's credential; its first poll happens at once. */
  async start(credential: string, options: { localHostExecutor?: boolean } = {}): Promise<DispatcherStatus> {
    this.sequence += 1;
    const dispatcher = new SimulatedDispatcher(
      `dsp-${this.sequence}`,
      credential,
      options.localHostExecutor ?? false,
    );
    await dispatcher.poll(this.apiUrl(), this.now());
    if (dispatcher.lastError) throw new Error(`the Dispatcher could not start: ${dispatcher.lastError}`);
    this.dispatchers.set(dispatcher.id, dispatcher);
    return dispatcher.status();
  }

  get(id: string): SimulatedDispatcher | undefined {
    return this.dispatchers.get(id);
  }

  /** Every simulated Dispatcher polls once (what each does on its own schedule in the cloud). */
  async tick(): Promise<DispatcherStatus[]> {
    for (const dispatcher of this.dispatchers.values()) {
      await dispatcher.poll(this.apiUrl(), this.now()).catch((error: unknown) => {
        dispatcher.lastError = (error as Error).message;
      });
    }
    return this.list();
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
}
