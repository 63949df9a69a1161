import { AsyncLocalStorage } from 'node:async_hooks';
import { KMSClient } from '@aws-sdk/client-kms';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { SQSClient } from '@aws-sdk/client-sqs';
import { type AccountBudget, processorRateLimit } from '../../../functions/ports/rate-limit.ts';
import { db } from '../../../functions/store/client.ts';
import type { RunningControlPlane } from '../../../lib/local/server.ts';
import { routes } from '../../../lib/routes.ts';
import { USAGE } from '../cost.ts';
import { onDispatch } from '../plane.ts';

/**
 * What the scale bench counts, from the bench's side without touching functions/: every DynamoDB
 * request asks for its consumed capacity (ReturnConsumedCapacity=TOTAL) and adds it up; SQS, SES,
 * KMS and Secrets Manager requests are counted; API requests (and whether the authorizer ran) and
 * sweeps are counted and timed; every processor call is counted where the account budget lets it
 * through; the bytes our logger writes (JSON lines on stdout) are counted and not printed.
 */
export class Counts {
  readUnits = 0;
  writeUnits = 0;
  sqsRequests = 0;
  emails = 0;
  kmsRequests = 0;
  secretsCalls = 0;
  /** API requests (webhooks included); of them, the ones the authorizer ran for (one more Lambda run). */
  apiRequests = 0;
  authorizedRequests = 0;
  webhookRequests = 0;
  /** Wall time of the requests (authorizer + handler), ms. */
  apiMs = 0;
  sweeps = 0;
  sweepMs = 0;
  processorCalls = 0;
  logBytes = 0;
  logLines = 0;
  /** Requests of session routes (the console's: through CloudFront in the cloud) and their answers' bytes. */
  sessionRequests = 0;
  sessionBytes = 0;
  /** Plan Change task runs (each a Lambda invocation in the cloud) and their wall time, ms. */
  taskInvocations = 0;
  taskMs = 0;
}

const READ_COMMANDS = /^(Get|BatchGet|Query|Scan|TransactGet)/;
const authorized = new Set(
  routes.filter((r) => r.auth === 'session' || r.auth === 'dispatcher').map((r) => `${r.method} ${r.path}`),
);
/** `GET /v1/stacks/{stackId}` style route keys matched against a request path. */
const patternsOf = (keys: Iterable<string>) =>
  [...keys].map((key) => {
    const [method, path] = key.split(' ') as [string, string];
    return { method, pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`) };
  });
const routePatterns = patternsOf(authorized);
const sessionPatterns = patternsOf(
  routes.filter((r) => r.auth === 'session').map((r) => `${r.method} ${r.path}`),
);

/** One tenant's observed table writes (wall ms, `performance.now()`). */
export interface TenantTrail {
  /** Reconciliation commits that went through (the tenant's version moved). */
  commits: number[];
  /** Intake marking it due for an event (attempts: a due time already earlier is kept). */
  marks: number[];
  /** Reads of the tenant item (a reconciliation's first read, among others). */
  reads: number[];
}

export class ScaleMeter {
  /** Counted over the whole run. */
  readonly total = new Counts();
  /** The phase being measured, if any. */
  phase: Counts | undefined;
  /** Every processor call's start (wall ms) and its share, while `recordCalls`. */
  readonly callStarts: { at: number; share: string }[] = [];
  recordCalls = false;
  /** Per tenant: its commits, due marks and reads (only tenants registered with `track`). */
  readonly trails = new Map<string, TenantTrail>();
  private readonly keyToTenant = new Map<string, string>();
  /** Every sweep's wall interval. */
  readonly sweepIntervals: { start: number; end: number }[] = [];
  private readonly probe = new AsyncLocalStorage<boolean>();
  budget: AccountBudget | undefined;
  /** The first error lines our logger wrote (shown by the bench: an error is never hidden). */
  readonly errors: string[] = [];
  /** Where the bench prints (stdout without the log lines counted). */
  readonly print: (line: string) => void;

  constructor() {
    const write = process.stdout.write.bind(process.stdout);
    this.print = (line: string) => {
      write(`${line}\n`);
    };
    // Our logger (Powertools) writes one JSON line per entry (stdout; warnings and errors to
    // stderr): counted, not shown.
    for (const stream of [process.stdout, process.stderr]) {
      const original = stream.write.bind(stream) as (...args: unknown[]) => boolean;
      stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
        const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
        if (text.startsWith('{"level"')) {
          const bytes = Buffer.byteLength(text);
          this.add((c) => {
            c.logBytes += bytes;
            c.logLines += 1;
          });
          if (/"level":"(ERROR|CRITICAL)"/.test(text)) this.errors.push(text.slice(0, 400));
          return true;
        }
        return original(chunk, ...rest);
      }) as typeof stream.write;
    }
  }

  /** Adds to the run, the phase and the request being measured. */
  private add(change: (counts: Counts) => void): void {
    if (this.probe.getStore()) return;
    change(this.total);
    if (this.phase) change(this.phase);
  }

  /** Runs `work` unmetered (the bench's own probes of the table). */
  unmetered<T>(work: () => Promise<T>): Promise<T> {
    return this.probe.run(true, work);
  }

  /**
   * What `work` (one request at a time, nothing else running) added to the run's counts: the
   * request goes over HTTP to the local server, outside this call's async context, so it is
   * measured as the difference of the totals.
   */
  async measureRequest<T>(work: () => Promise<T>): Promise<{ result: T; counts: Counts }> {
    const before = { ...this.total };
    const result = await work();
    const counts = new Counts();
    for (const key of Object.keys(counts) as (keyof Counts)[]) counts[key] = this.total[key] - before[key];
    return { result, counts };
  }

  /** Starts a phase; its counts. */
  startPhase(): Counts {
    this.phase = new Counts();
    return this.phase;
  }

  endPhase(): Counts {
    const phase = this.phase ?? new Counts();
    this.phase = undefined;
    return phase;
  }

  /** Follows a tenant's item: `key` is the tenant item's key (keys.tenant). */
  track(tenantId: string, key: { PK: string; SK: string }): void {
    this.keyToTenant.set(`${key.PK}|${key.SK}`, tenantId);
    this.trails.set(tenantId, { commits: [], marks: [], reads: [] });
  }

  private trailOf(key: unknown): TenantTrail | undefined {
    const k = key as { PK?: string; SK?: string } | undefined;
    const tenantId = k?.PK && k.SK ? this.keyToTenant.get(`${k.PK}|${k.SK}`) : undefined;
    return tenantId ? this.trails.get(tenantId) : undefined;
  }

  async install(plane: RunningControlPlane): Promise<void> {
    db().middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as {
          ReturnConsumedCapacity?: string;
          Key?: unknown;
          TransactItems?: { Update?: { Key?: unknown; UpdateExpression?: string } }[];
        };
        if (!this.probe.getStore()) input.ReturnConsumedCapacity = 'TOTAL';
        const command = context.commandName ?? '';
        const asked = performance.now();
        if (command === 'GetItemCommand' || command === 'GetCommand')
          this.trailOf(input.Key)?.reads.push(asked);
        const updates = (input.TransactItems ?? []).map((item) => item.Update).filter((u) => u !== undefined);
        for (const update of updates)
          if (update.UpdateExpression?.startsWith('SET dueAt = :now'))
            this.trailOf(update.Key)?.marks.push(asked);
        const result = await next(args);
        for (const update of updates)
          if (update.UpdateExpression?.includes('#version = #version + :one'))
            this.trailOf(update.Key)?.commits.push(performance.now());
        const consumed = (result.output as { ConsumedCapacity?: unknown }).ConsumedCapacity;
        const units = (Array.isArray(consumed) ? consumed : consumed ? [consumed] : []).reduce(
          (sum: number, entry: { CapacityUnits?: number }) => sum + (entry.CapacityUnits ?? 0),
          0,
        );
        const read = READ_COMMANDS.test(command);
        this.add((c) => {
          if (read) c.readUnits += units;
          else c.writeUnits += units;
        });
        return result;
      },
      { step: 'initialize', name: 'scaleBenchConsumedCapacity' },
    );
    const count = (prototype: { send: unknown }, add: (c: Counts) => void) => {
      const send = prototype.send as (...args: unknown[]) => unknown;
      const meter = this;
      prototype.send = function (this: unknown, ...args: unknown[]) {
        meter.add(add);
        return send.apply(this, args);
      };
    };
    count(SQSClient.prototype, (c) => c.sqsRequests++);
    count(SESv2Client.prototype, (c) => c.emails++);
    count(KMSClient.prototype, (c) => c.kmsRequests++);
    count(SecretsManagerClient.prototype, (c) => c.secretsCalls++);

    onDispatch(plane, ({ response, ms, pathname, method }) => {
      if (pathname.startsWith('/v1/'))
        this.add((c) => {
          c.apiRequests++;
          c.apiMs += ms;
          if (pathname === '/v1/webhooks/processor') c.webhookRequests++;
          if (routePatterns.some((r) => r.method === method && r.pattern.test(pathname)))
            c.authorizedRequests++;
          if (sessionPatterns.some((r) => r.method === method && r.pattern.test(pathname))) {
            c.sessionRequests++;
            c.sessionBytes += response.body.length + USAGE.responseHeaderBytes;
          }
        });
    });
    // The Plan Change tasks run in this process (the Step Functions stand-in calls each Task
    // state's handler): each run is a Lambda invocation in the cloud, timed here.
    const taskHandlers = (
      plane.cloud.stepFunctions as unknown as {
        taskHandlers: Record<string, (input: unknown) => Promise<unknown>>;
      }
    ).taskHandlers;
    for (const [state, run] of Object.entries(taskHandlers))
      taskHandlers[state] = async (input: unknown) => {
        const started = performance.now();
        try {
          return await run(input);
        } finally {
          const ms = performance.now() - started;
          this.add((c) => {
            c.taskInvocations++;
            c.taskMs += ms;
          });
        }
      };
    const runNow = plane.sweeper.runNow.bind(plane.sweeper);
    plane.sweeper.runNow = async () => {
      const start = performance.now();
      try {
        return await runNow();
      } finally {
        const end = performance.now();
        this.sweepIntervals.push({ start, end });
        this.add((c) => {
          c.sweeps++;
          c.sweepMs += end - start;
        });
      }
    };
    this.budget = await processorRateLimit();
    this.budget.observer = (at, share) => {
      this.add((c) => c.processorCalls++);
      if (this.recordCalls) this.callStarts.push({ at: at - performance.timeOrigin, share });
    };
  }
}
