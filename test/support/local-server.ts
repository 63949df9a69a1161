import { type ChildProcessWithoutNullStreams, execFile, execFileSync, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DescribeExecutionCommand, SFNClient } from '@aws-sdk/client-sfn';
import { inject } from 'vitest';

/** `npm start`'s server, started as its own process exactly as `npm start` runs it. */
export const REPO = path.resolve(import.meta.dirname, '../..');
export const NODE = path.join(REPO, 'node_modules/.bin/node');

declare module 'vitest' {
  export interface ProvidedContext {
    /** The e2e run's folder: every data folder of the run is made in it (test/support/e2e-setup.ts). */
    e2eRunDirectory: string;
  }
}

/** What a test reaches of a running local control plane: the shared one or one of its own. */
export interface LocalTarget {
  url: string;
  dataDirectory: string;
  /** Everything the server wrote to stdout and stderr so far. */
  output: () => string;
  /** The environment `npm start` wrote for operator tools (queue URLs, endpoints). */
  environment: () => Record<string, string>;
}

export interface Running extends LocalTarget {
  process: ChildProcessWithoutNullStreams;
}

/** The environment of a user's shell: without what the test workers set for in-process tests. */
export const userEnvironment = () =>
  Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) =>
        !/^(AWS_|CODE_HOST_|PROCESSOR_|STACK_DOMAIN|TENANT_APP_URL|PUBLIC_API_URL|TABLE_NAME)/.test(name),
    ),
  );

/** The run's folder when the e2e setup made one (every server of the run is then found by it). */
const runDirectory = (): string | undefined => {
  try {
    return inject('e2eRunDirectory');
  } catch {
    return undefined;
  }
};

/** A new data folder, inside the e2e run's folder when there is one. */
export const newDataDirectory = (within = runDirectory() ?? tmpdir()) => {
  mkdirSync(within, { recursive: true });
  return mkdtempSync(path.join(within, 'scp-e2e-'));
};

/** The environment `npm start` wrote into its data folder for operator tools. */
export const endpointsEnvironment = (dataDirectory: string): Record<string, string> =>
  (
    JSON.parse(readFileSync(path.join(dataDirectory, 'endpoints.json'), 'utf8')) as {
      environment: Record<string, string>;
    }
  ).environment;

export interface StartOptions {
  /** Added to (or overriding) its environment, e.g. `{ POWERTOOLS_LOG_LEVEL: 'DEBUG' }` (WARN by default). */
  environment?: Record<string, string>;
  /** How long it may take to say it is ready before it is killed, with its Java (default 90 s). */
  readyWithinMs?: number;
  /** A file that receives its output too (for processes that cannot hold `output()`). */
  logFile?: string;
  /** Gives up before it is ready when aborted: killed with its Java, as when not ready in time. */
  signal?: AbortSignal;
}

/** Processes whose command line names `text` (a data folder: the server, its shell guard, its Java). */
export const processesNaming = (text: string): number[] => {
  try {
    return execFileSync('pgrep', ['-f', '--', text], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter(Boolean)
      .map(Number)
      .filter((pid) => pid !== process.pid);
  } catch {
    return [];
  }
};

/** Java processes whose database lives in this data folder. */
export const javaProcessesOf = (dataDirectory: string): string[] => {
  try {
    return execFileSync('pgrep', ['-f', `DynamoDBLocal.jar.*${dataDirectory}`], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter(Boolean);
  } catch {
    return [];
  }
};

const exitOf = (child: ChildProcessWithoutNullStreams): Promise<number | null> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve(child.exitCode)
    : new Promise((resolve) => child.once('exit', (code) => resolve(code)));

const waitUntil = async (done: () => boolean, ms: number): Promise<boolean> => {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return true;
};

/**
 * Kills a server that will not be asked politely (never ready, or not stopping): the server, then
 * every process still naming its data folder (its Java and the Java's shell guard), by their ids.
 */
export const killLocalServer = async (child: ChildProcessWithoutNullStreams, dataDirectory: string) => {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGKILL');
    await exitOf(child);
  }
  // The shell guard stops Java once the server's pipe closes; what is left after that is killed.
  if (!(await waitUntil(() => javaProcessesOf(dataDirectory).length === 0, 5000)))
    for (const pid of processesNaming(dataDirectory)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
  await waitUntil(() => processesNaming(dataDirectory).length === 0, 5000);
};

/**
 * Starts `npm start`'s server. `output()` is everything it wrote to stdout and stderr, from start
 * to exit. A server that exits or is not ready in time is killed with its Java before this rejects.
 */
export const startLocalServer = (
  dataDirectory: string,
  extraArgs: string[] = [],
  options: StartOptions = {},
): Promise<Running> =>
  new Promise((resolve, reject) => {
    const child = spawn(
      NODE,
      ['lib/local/main.ts', '--port', '0', '--data-dir', dataDirectory, ...extraArgs],
      {
        cwd: REPO,
        env: { ...userEnvironment(), POWERTOOLS_LOG_LEVEL: 'WARN', ...options.environment },
      },
    );
    const log = options.logFile ? createWriteStream(options.logFile, { flags: 'a' }) : undefined;
    child.once('exit', () => log?.end());
    let output = '';
    let settled = false;
    const fail = (reason: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      killLocalServer(child, dataDirectory).then(
        () => reject(new Error(`${reason}:\n${output}`)),
        (error: unknown) => reject(error),
      );
    };
    const readyWithinMs = options.readyWithinMs ?? 90_000;
    const timer = setTimeout(() => fail(`not ready in ${readyWithinMs / 1000} s`), readyWithinMs);
    options.signal?.addEventListener('abort', () => fail('given up before ready'), { once: true });
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      log?.write(chunk);
      if (settled) return;
      const match = /API\s+(http:\/\/localhost:\d+)/.exec(output);
      if (match?.[1] && output.includes('Press Ctrl-C')) {
        settled = true;
        clearTimeout(timer);
        resolve({
          process: child,
          url: match[1],
          dataDirectory,
          output: () => output,
          environment: () => endpointsEnvironment(dataDirectory),
        });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => fail(`exited with ${code} before ready`));
  });

/**
 * Stops the server as Ctrl-C does and answers its exit code; one that has not stopped within
 * `withinMs` is killed (with its Java) and answers null.
 */
export const stopLocalServer = async (running: Running, withinMs = 60_000): Promise<number | null> => {
  const child = running.process;
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = exitOf(child);
  child.kill('SIGINT');
  const code = await Promise.race([
    exited,
    new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), withinMs).unref()),
  ]);
  if (code !== 'late') return code;
  await killLocalServer(child, running.dataDirectory);
  return null;
};

/** `npm run ops -- ...` against the server of `dataDirectory`, as an operator would: exit code and output. */
export const runOps = (dataDirectory: string, args: string[], environment: Record<string, string> = {}) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      NODE,
      ['lib/ops/cli.ts', ...args, '--data-dir', dataDirectory],
      { cwd: REPO, env: { PATH: process.env.PATH ?? '', POWERTOOLS_LOG_LEVEL: 'SILENT', ...environment } },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });

/** `npm run ops -- capacity set` in the region `eu`, `--create` for a location it does not have yet. */
export const setCapacity = (
  dataDirectory: string,
  slot: { location: string; plan: string; total: number },
  create = false,
) =>
  runOps(dataDirectory, [
    'capacity',
    'set',
    '--region',
    'eu',
    '--location',
    slot.location,
    '--plan',
    slot.plan,
    '--total',
    String(slot.total),
    ...(create ? ['--create'] : []),
  ]);

/** The client configuration of a stand-in of the local cloud (SQS, SFN...), from its environment. */
export const standInClientConfig = (environment: Record<string, string>, service: 'SQS' | 'SFN') => ({
  endpoint: environment[`AWS_ENDPOINT_URL_${service}`],
  region: environment.AWS_REGION,
  credentials: {
    accessKeyId: environment.AWS_ACCESS_KEY_ID ?? '',
    secretAccessKey: environment.AWS_SECRET_ACCESS_KEY ?? '',
  },
});

/**
 * The status of a Plan Change's Step Functions execution (named after the change), from the local
 * stand-in's API of the server whose environment this is.
 */
export const executionStatusOf = async (environment: Record<string, string>, changeId: string) => {
  const sfn = new SFNClient(standInClientConfig(environment, 'SFN'));
  try {
    const executionArn = `${(environment.PLAN_CHANGE_STATE_MACHINE_ARN ?? '').replace(':stateMachine:', ':execution:')}:${changeId}`;
    return (await sfn.send(new DescribeExecutionCommand({ executionArn }))).status;
  } finally {
    sfn.destroy();
  }
};

// biome-ignore lint/suspicious/noExplicitAny: tests read response JSON freely
export const json = async (response: Response): Promise<{ status: number; body: any }> => ({
  status: response.status,
  body: await response.json(),
});
