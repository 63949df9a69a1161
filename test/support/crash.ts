import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { CrashPointName } from '../../functions/ports/crash-point.ts';
import { listInventory, setCapacityTotal } from '../../functions/store/capacity.ts';
import { listDueTenants } from '../../functions/store/due.ts';
import { REPO_ROOT } from '../../lib/constants.ts';
import { type ArmedPoint, crashLogFile, crashPointsFile } from '../../lib/crash-points.ts';
import { startDynamoDbLocal } from '../../lib/local/dynamodb.ts';
import { FleetSimulator } from '../../lib/local/fleet.ts';
import { freePort } from '../../lib/local/ports.ts';
import type { ProcessorState } from '../../lib/local/processor/state.ts';
import { localTimeOf } from '../../lib/local-data.ts';
import { checkInvariants, deadLettered, intakeCounts } from './chaos.ts';
import { type Answer, moneyPathDriver, sleep } from './money-path.ts';

/**
 * The crash run (issue 37, item 2): our process (`node lib/local/main.ts`: the API, the sweep, the
 * queue, Step Functions and mail stand-ins, the outbox) is killed with SIGKILL again and again,
 * at random moments and at the named kill points of functions/ports/crash-point.ts, and started
 * again on the same data folder, while tenants go through the money path. The processor emulator,
 * DynamoDB Local and the Dispatchers are outside services, as in the cloud: they are not killed.
 * Then the kills stop, the run settles, and the chaos run's invariant checks read the processor's
 * records and ours. `npm run test:crash` (test/crash/run.ts) runs it.
 */

export interface CrashOptions {
  seed: number;
  tenants: number;
  /** The least number of kills before the kills stop. */
  kills: number;
  concurrency?: number;
  /** A random life's work: at least the first, plus up to the second (ms). Default 2 to 10 s. */
  randomLifeMs?: [number, number];
  /** How long a point life works before it is killed from outside, if no point fired (ms). */
  pointLifeMs?: number;
  /** The share of lives that arm no point and are killed at a random moment (default 0.35). */
  randomShare?: number;
  /** Fewer named points than this reached is a violation of the run (default 1). */
  leastPoints?: number;
  /**
   * The short run: the kills stop once counted and `leastPoints` points have fired, even if the
   * path is still driven (which then ends without them), and the drive stops before the renewal.
   */
  short?: boolean;
  log?: (line: string) => void;
}

/** Node's compile cache for our process's restarts and the ops CLI (Node 22.1+; ignored before). */
const COMPILE_CACHE = path.join(tmpdir(), 'scp-crash-compile-cache');

/** The share of lives that arm no point and are killed at a random moment, by default. */
const RANDOM_LIFE_SHARE = 0.35;

export interface CrashResult {
  kills: number;
  /** Which kill points fired, and how often (`random` for the kills from outside). */
  byPoint: Record<string, number>;
  points: number;
  violations: string[];
  abandoned: string[];
  settledSeconds: number;
  line: string;
}

/** A point to arm in one life of the process: its name and (for a Plan Change task) the task. */
interface PointSpec {
  point: CrashPointName;
  detail?: string;
}

/** Every point the run means to see fire, in the order it arms them first. */
export const CRASH_RUN_POINTS: readonly PointSpec[] = [
  { point: 'checkout.session-created' },
  { point: 'refund.refunded' },
  { point: 'intake.enqueued' },
  { point: 'sweep.between-writes', detail: 'committed' },
  { point: 'email.sent' },
  { point: 'idempotency.claimed', detail: 'add-stack' },
  { point: 'add-stack.billed' },
  { point: 'idempotency.claimed', detail: 'plan-change' },
  { point: 'plan-change.task', detail: 'prepare' },
  { point: 'plan-change.task', detail: 'switch' },
  { point: 'plan-change.task', detail: 'verify' },
  { point: 'plan-change.task', detail: 'commit-billing' },
  { point: 'plan-change.task', detail: 'complete' },
  { point: 'export.started' },
];

/** What one life of our process does: the points it arms, and how long it works. */
export interface LifePlan {
  arm: ArmedPoint[];
  kind: 'point' | 'random';
  workMs: number;
}

/**
 * One life's plan from three draws of the seed (kind, pick, time) and the points fired so far: a
 * random life (share `randomShare`) arms nothing and works `randomLifeMs[0]` plus up to
 * `randomLifeMs[1]`; a point life arms every point of CRASH_RUN_POINTS not yet fired, on its
 * first pass (a point that has fired is not armed again: the others get their turn), or, once
 * all have fired, one drawn at random on its first to third pass; it works up to `pointLifeMs`.
 */
export const planLife = (
  [kindDraw, pickDraw, timeDraw]: [number, number, number],
  fired: ReadonlySet<string>,
  {
    randomShare,
    randomLifeMs,
    pointLifeMs,
  }: { randomShare: number; randomLifeMs: [number, number]; pointLifeMs: number },
): LifePlan => {
  if (kindDraw < randomShare)
    return { arm: [], kind: 'random', workMs: randomLifeMs[0] + timeDraw * randomLifeMs[1] };
  const missing = CRASH_RUN_POINTS.filter((spec) => !fired.has(pointLabel(spec)));
  const arm: ArmedPoint[] =
    missing.length > 0
      ? missing.map((spec) => ({ ...spec, hit: 1 }))
      : [
          {
            ...(CRASH_RUN_POINTS[Math.floor(pickDraw * CRASH_RUN_POINTS.length)] as PointSpec),
            hit: 1 + Math.floor(timeDraw * 3),
          },
        ];
  return { arm, kind: 'point', workMs: pointLifeMs };
};

export const pointLabel = (spec: { point: string; detail?: string }) =>
  spec.detail ? `${spec.point}:${spec.detail}` : spec.point;

/** A small seeded generator (mulberry32): a seed repeats a run's draws. */
const seeded = (seed: number) => {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

/** Reads the first line a child prints (the processor host's endpoints). */
const firstLine = (child: ChildProcess): Promise<string> =>
  new Promise((resolve, reject) => {
    if (!child.stdout) return reject(new Error('no stdout'));
    const lines = createInterface({ input: child.stdout });
    lines.once('line', (line) => resolve(line));
    child.once('exit', (code) => reject(new Error(`exited with ${code} before it was ready`)));
  });

export const runCrash = async (options: CrashOptions): Promise<CrashResult> => {
  const log = options.log ?? (() => undefined);
  const random = seeded(options.seed);
  const randomLifeMs = options.randomLifeMs ?? [2_000, 8_000];
  const pointLifeMs = options.pointLifeMs ?? 20_000;
  /** Set once the kills begin: told of each answer our API gives the driver. */
  let answered: (status: number) => void = () => undefined;
  /** Lives that ended without a kill of ours: our process exited by itself. */
  const selfExits: string[] = [];
  const dataDirectory = mkdtempSync(path.join(tmpdir(), 'scp-crash-'));
  mkdirSync(dataDirectory, { recursive: true });
  const outside: { stop(): Promise<void> }[] = [];
  let ours: ChildProcess | undefined;
  const byPoint: Record<string, number> = {};
  let kills = 0;
  try {
    // The outside services: DynamoDB Local and the processor emulator, each its own process,
    // started together (each takes seconds to tens of seconds on a loaded machine).
    const apiPort = await freePort();
    const apiUrl = `http://localhost:${apiPort}`;
    const processorHost = spawn(
      process.execPath,
      [
        path.join(REPO_ROOT, 'lib/local/processor/main.ts'),
        '--data-dir',
        dataDirectory,
        '--webhook-url',
        `${apiUrl}/v1/webhooks/processor`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    outside.push({
      stop: async () => {
        processorHost.kill('SIGTERM');
        await new Promise((resolve) => processorHost.once('exit', resolve));
      },
    });
    const processorReady = firstLine(processorHost);
    processorReady.catch(() => undefined);
    // Java is slow to come up on a busy machine (a minute and more): tried three times.
    let table: Awaited<ReturnType<typeof startDynamoDbLocal>> | undefined;
    for (let attempt = 1; !table; attempt++) {
      try {
        table = await startDynamoDbLocal({
          port: await freePort(),
          dataDirectory: path.join(dataDirectory, 'dynamodb'),
          readyWithinMs: 180_000,
        });
      } catch (error) {
        if (attempt >= 3) throw error;
        log(`crash: DynamoDB Local did not come up (${(error as Error).message.slice(0, 80)}); again`);
      }
    }
    outside.push(table);
    const processor = JSON.parse(await processorReady) as { url: string; control: string };
    const control = async (method: string, route: string, body?: unknown): Promise<Answer> => {
      try {
        const response = await fetch(`${processor.control}${route}`, {
          method,
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          signal: AbortSignal.timeout(60_000),
        });
        return { status: response.status, body: await response.json() };
      } catch (error) {
        return { status: 0, body: String(error) };
      }
    };

    // Our process: started again on the same data after every kill, with the next point armed.
    const startLog = path.join(dataDirectory, 'control-plane.log');
    let life = 0;
    /** How long the last start took, from the spawn to its first 200 (s). */
    let upIn = 0;
    const start = async (arm: ArmedPoint[]) => {
      const spawnedAt = performance.now();
      writeFileSync(crashPointsFile(dataDirectory), JSON.stringify({ arm }));
      // Written again once it is up (its queue and mail stand-ins' ports change with each start).
      rmSync(path.join(dataDirectory, 'endpoints.json'), { force: true });
      life++;
      const child = spawn(
        process.execPath,
        [
          path.join(REPO_ROOT, 'lib/local/main.ts'),
          '--port',
          String(apiPort),
          '--data-dir',
          dataDirectory,
          '--manual-sweep',
          '--processor-url',
          processor.url,
          '--dynamodb-endpoint',
          table.endpoint,
        ],
        {
          stdio: ['ignore', 'pipe', 'pipe'],
          // The compile cache (kept across runs) makes each restart cheaper on a loaded machine.
          env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'ERROR', NODE_COMPILE_CACHE: COMPILE_CACHE },
        },
      );
      writeFileSync(startLog, `── life ${life + 1}: ${JSON.stringify(arm)}\n`, { flag: 'a' });
      for (const stream of [child.stdout, child.stderr])
        stream?.on('data', (chunk: Buffer) => writeFileSync(startLog, chunk, { flag: 'a' }));
      ours = child;
      // Up when it answers (a start takes a few seconds; it answers 503 until ready).
      for (let waited = 0; waited < 120_000; waited += 250) {
        if (child.exitCode !== null || child.signalCode !== null) {
          // Died while it started (a Plan Change task the workflow stand-in resumed reached its point).
          upIn = Number.NaN;
          return;
        }
        try {
          const answer = await fetch(`${apiUrl}/_local/clock`, { signal: AbortSignal.timeout(2_000) });
          if (answer.status === 200 && existsSync(path.join(dataDirectory, 'endpoints.json'))) {
            upIn = (performance.now() - spawnedAt) / 1000;
            return;
          }
        } catch {
          // Not listening yet.
        }
        await sleep(250);
      }
      throw new Error(`our process did not come up within 120 s (life ${life}): see ${startLog}`);
    };
    const exited = (child: ChildProcess) =>
      child.exitCode !== null || child.signalCode !== null
        ? Promise.resolve()
        : new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const pointKills = () =>
      existsSync(crashLogFile(dataDirectory))
        ? readFileSync(crashLogFile(dataDirectory), 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((line) => JSON.parse(line) as { point: string; detail?: string; pid?: number })
        : [];
    const environment = () =>
      (
        JSON.parse(readFileSync(path.join(dataDirectory, 'endpoints.json'), 'utf8')) as {
          environment: Record<string, string>;
        }
      ).environment;

    await start([]);
    // This process reads and writes the table too (capacity, the due tenants): the outside one.
    Object.assign(process.env, environment(), { AWS_ENDPOINT_URL_DYNAMODB: table.endpoint });
    const now = () => localTimeOf(dataDirectory);
    for (const slot of (await listInventory('eu')).slots)
      await setCapacityTotal(
        { region: 'eu', location: slot.location, plan: slot.plan, total: slot.total + 3 * options.tenants },
        now(),
      );

    // The Dispatchers run outside our process, as real ones do: they outlive its kills.
    const fleet = new FleetSimulator(() => apiUrl, now, { dataDirectory: path.join(dataDirectory, 'fleet') });
    const refundOutput = path.join(dataDirectory, 'refund.log');
    const driver = moneyPathDriver({
      url: () => apiUrl,
      loginPrefix: `crash-${options.seed}`,
      retryWithinMs: 300_000,
      answered: (status) => answered(status),
      pay: (sessionId, card) => control('POST', '/pay', { sessionId, card }),
      startDispatcher: async (credential) => {
        try {
          return { status: 201, body: await fleet.start(credential) };
        } catch (error) {
          return { status: 0, body: String(error) };
        }
      },
      tickFleet: async () => {
        await fleet.tick().catch(() => undefined);
      },
      // The operator's `npm run ops -- refund`: a process of its own, killed at its point too.
      grantMoneyBack: async (tenant) => {
        // The CLI reads endpoints.json, gone while our process restarts: it waits for it.
        for (
          let waited = 0;
          waited < 60_000 && !existsSync(path.join(dataDirectory, 'endpoints.json'));
          waited += 500
        )
          await sleep(500);
        const child = spawn(
          process.execPath,
          [
            path.join(REPO_ROOT, 'lib/ops/cli.ts'),
            'refund',
            '--slug',
            tenant.login,
            '--email',
            tenant.email,
            '--data-dir',
            dataDirectory,
          ],
          {
            stdio: ['ignore', 'pipe', 'pipe'],
            env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT', NODE_COMPILE_CACHE: COMPILE_CACHE },
          },
        );
        let output = '';
        child.stdout?.on('data', (chunk: Buffer) => {
          output += chunk.toString();
        });
        child.stderr?.on('data', (chunk: Buffer) => {
          output += chunk.toString();
        });
        await exited(child);
        writeFileSync(refundOutput, `${tenant.login}: ${output}\n`, { flag: 'a' });
        if (child.exitCode === 0) return;
        const code = /\((\w+)\)/.exec(output)?.[1] ?? (child.signalCode ? 'killed' : 'failed');
        throw Object.assign(new Error(output), { code });
      },
      advanceClock: async (seconds) => {
        const advanced = await driver.call('POST', '/_local/clock/advance', { seconds });
        // The processor bills what came due at the new time, and its webhooks go out.
        if (advanced.status === 200) await control('POST', '/tick');
        return advanced;
      },
    });

    // The kills. Each life of our process is one of two kinds (the seed draws which, and how long):
    // - a point life arms every named point that has not fired yet (once every one has, one drawn
    //   at random, on its first to third pass), so the first of them the work reaches kills it; the
    //   ops CLI's refund reads the same file. If none is reached within its time, it is killed there.
    // - a random life arms nothing and is killed from outside at a moment drawn from the seed.
    // A life's time runs from its first answer to the driver (when it is doing work), not from its
    // spawn: on a loaded machine a start takes seconds, and a life timed from the spawn could end
    // before it served anything (the kills then land while nothing is driven).
    let driving = true;
    const fired = () => new Set(pointKills().map(pointLabel));
    const nextArming = () =>
      // Three draws every life, whatever they decide: a seed repeats each life's kind and time.
      planLife([random(), random(), random()], fired(), {
        randomShare: options.randomShare ?? RANDOM_LIFE_SHARE,
        randomLifeMs,
        pointLifeMs,
      });
    /** Answers our API gave the driver in this life, and when the first came. */
    let work: { answers: number; since?: number } = { answers: 0 };
    answered = () => {
      work.answers++;
      work.since ??= performance.now();
    };
    const dead = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;
    const killing = (async () => {
      let plan: LifePlan = { arm: [], kind: 'random', workMs: randomLifeMs[0] };
      while (true) {
        const child = ours as ChildProcess;
        const upAt = performance.now();
        // Its time starts with its first answer (or, when nothing is driven, 10 s after it is up).
        while (!dead(child) && work.since === undefined && performance.now() - upAt < 10_000) await sleep(50);
        const from = work.since ?? performance.now();
        while (!dead(child) && performance.now() - from < plan.workMs) await sleep(50);
        let how: string;
        if (!dead(child)) {
          child.kill('SIGKILL');
          await exited(child);
          byPoint.random = (byPoint.random ?? 0) + 1;
          how = `killed from outside after ${((performance.now() - from) / 1000).toFixed(1)} s of work`;
        } else {
          const at = pointKills().find((entry) => entry.pid === child.pid);
          how = at ? `died at ${pointLabel(at)}` : `exited by itself (${child.exitCode ?? child.signalCode})`;
          if (!at) selfExits.push(`life ${life}: our process ${how}; see ${startLog}`);
        }
        kills = (byPoint.random ?? 0) + pointKills().length;
        log(
          `crash: life ${life} (${Number.isNaN(upIn) ? 'died while starting' : `up in ${upIn.toFixed(1)} s`}; ${plan.kind === 'random' ? 'random' : `armed ${plan.arm.length}`}; ${work.answers} answers) ${how}; ${kills} kills`,
        );
        // The full run kills while the path is driven; the short run stops once it has its kills
        // and its named points (or the path has been driven).
        const enoughPoints = options.short && fired().size >= (options.leastPoints ?? 1);
        if ((!driving || enoughPoints) && kills >= options.kills) break;
        plan = nextArming();
        await start(plan.arm);
        work = { answers: 0 };
      }
      // The kills stop: a last start with nothing armed.
      await start([]);
    })();
    const busy = (async () => {
      await driver.drive(options.tenants, options.concurrency ?? 6, log, 'crash', {
        renewal: !options.short,
      });
      driving = false;
      // Busy until the kills stop: the sweep and the Dispatchers keep working.
      while (kills < options.kills) {
        await driver.sweep();
        await fleet.tick().catch(() => undefined);
        await sleep(500);
      }
    })();
    await Promise.all([busy, killing]);
    for (const entry of pointKills()) {
      const label = pointLabel(entry);
      byPoint[label] = (byPoint[label] ?? 0) + 1;
    }
    // Every kill: those from outside, and one line in the crash log for each that died at its
    // point (our server's lives and the ops CLI's refunds alike).
    kills = (byPoint.random ?? 0) + pointKills().length;
    log(`crash: ${kills} kills in ${life} lives of our process; settling`);

    const settleStarted = performance.now();
    await driver.settle({
      intake: () => intakeCounts(environment().AWS_ENDPOINT_URL_SQS ?? '', environment()),
      dueCount: async () => (await listDueTenants(now(), 1)).due.length,
    });
    const settledSeconds = (performance.now() - settleStarted) / 1000;

    const state = (await control('GET', '/state')).body as ProcessorState;
    const mail = await driver.call('GET', '/_local/mail');
    const violations = await checkInvariants(
      { processor: state, mail: mail.body?.emails ?? [] },
      driver.tenants,
      driver.as,
    );
    for (const letter of await deadLettered(environment().AWS_ENDPOINT_URL_SQS ?? '', environment()))
      violations.push(`dead-lettered without a cause of ours: ${letter}`);
    violations.push(...selfExits);
    for (const stuck of driver.abandoned.filter((step) => step.startsWith('Plan Changes and exports end')))
      violations.push(`stuck after the kills: ${stuck}`);
    const points = Object.keys(byPoint).filter((label) => label !== 'random').length;
    // A run whose kills all landed while nothing was being done proves nothing: said as a violation.
    if (points < (options.leastPoints ?? 1))
      violations.push(
        `the kills reached ${points} named points, fewer than ${options.leastPoints ?? 1}: the money path was not driven far enough (see the steps given up on)`,
      );
    const line = `crash: ${kills} kills at ${points} points, ${violations.length} violations, settled in ${settledSeconds.toFixed(1)} s`;
    return {
      kills,
      byPoint,
      points,
      violations,
      abandoned: driver.abandoned,
      settledSeconds,
      line,
    };
  } finally {
    if (ours && ours.exitCode === null && ours.signalCode === null) {
      ours.kill('SIGTERM');
      await new Promise((resolve) => ours?.once('exit', resolve));
    }
    for (const service of outside.reverse()) await service.stop().catch(() => undefined);
    if (!process.env.CRASH_KEEP_DATA) rmSync(dataDirectory, { recursive: true, force: true });
    else log(`crash: data kept in ${dataDirectory}`);
  }
};
