import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** `npm start`'s server, started as its own process exactly as `npm start` runs it. */
export const REPO = path.resolve(import.meta.dirname, '../..');
export const NODE = path.join(REPO, 'node_modules/.bin/node');

export interface Running {
  process: ChildProcessWithoutNullStreams;
  url: string;
  dataDirectory: string;
  output: () => string;
  /** The environment `npm start` wrote for operator tools (queue URLs, endpoints). */
  environment: () => Record<string, string>;
}

/** The environment of a user's shell: without what the test workers set for in-process tests. */
export const userEnvironment = () =>
  Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) =>
        !/^(AWS_|CODE_HOST_|PROCESSOR_|STACK_DOMAIN|TENANT_APP_URL|PUBLIC_API_URL|TABLE_NAME)/.test(name),
    ),
  );

export const newDataDirectory = () => mkdtempSync(path.join(tmpdir(), 'scp-e2e-'));

/**
 * Starts `npm start`'s server. `output()` is everything it wrote to stdout and stderr, from start
 * to exit. `environment` adds to (or overrides) its environment, such as
 * `{ POWERTOOLS_LOG_LEVEL: 'DEBUG' }` to keep every log line (WARN by default).
 */
export const startLocalServer = (
  dataDirectory: string,
  extraArgs: string[] = [],
  options: { environment?: Record<string, string> } = {},
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
    let output = '';
    const timer = setTimeout(() => reject(new Error(`not ready in 60 s:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /API\s+(http:\/\/localhost:\d+)/.exec(output);
      if (match?.[1] && output.includes('Press Ctrl-C')) {
        clearTimeout(timer);
        resolve({
          process: child,
          url: match[1],
          dataDirectory,
          output: () => output,
          environment: () =>
            (
              JSON.parse(readFileSync(path.join(dataDirectory, 'endpoints.json'), 'utf8')) as {
                environment: Record<string, string>;
              }
            ).environment,
        });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before ready:\n${output}`));
    });
  });

export const stopLocalServer = async (running: Running): Promise<number | null> => {
  if (running.process.exitCode !== null) return running.process.exitCode;
  const exited = new Promise<number | null>((resolve) =>
    running.process.once('exit', (code) => resolve(code)),
  );
  running.process.kill('SIGINT');
  return exited;
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

// biome-ignore lint/suspicious/noExplicitAny: tests read response JSON freely
export const json = async (response: Response): Promise<{ status: number; body: any }> => ({
  status: response.status,
  body: await response.json(),
});
