import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * `npm start`'s server, started as its own process exactly as `npm start` runs it, driven over
 * HTTP as the tenant app would.
 */
const REPO = path.resolve(import.meta.dirname, '../..');
const NODE = path.join(REPO, 'node_modules/.bin/node');
const dataDirectory = mkdtempSync(path.join(tmpdir(), 'scp-e2e-'));

interface Running {
  process: ChildProcessWithoutNullStreams;
  url: string;
  output: () => string;
}

const start = (extraArgs: string[] = []): Promise<Running> =>
  new Promise((resolve, reject) => {
    const child = spawn(
      NODE,
      ['lib/local/main.ts', '--port', '0', '--data-dir', dataDirectory, ...extraArgs],
      {
        cwd: REPO,
        env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'WARN' },
      },
    );
    let output = '';
    const timer = setTimeout(() => reject(new Error(`not ready in 60 s:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /API\s+(http:\/\/localhost:\d+)/.exec(output);
      if (match?.[1] && output.includes('Press Ctrl-C')) {
        clearTimeout(timer);
        resolve({ process: child, url: match[1], output: () => output });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before ready:\n${output}`));
    });
  });

const stop = async (running: Running): Promise<number | null> => {
  const exited = new Promise<number | null>((resolve) =>
    running.process.once('exit', (code) => resolve(code)),
  );
  running.process.kill('SIGINT');
  return exited;
};

/** Java processes whose database lives in this test's data folder. */
const javaProcessesOfThisRun = (): string[] => {
  try {
    return execFileSync('pgrep', ['-f', `DynamoDBLocal.jar.*${dataDirectory}`], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter(Boolean);
  } catch {
    return [];
  }
};

// biome-ignore lint/suspicious/noExplicitAny: the test reads response JSON freely
const json = async (response: Response): Promise<{ status: number; body: any }> => ({
  status: response.status,
  body: await response.json(),
});

let current: Running | undefined;
afterAll(async () => {
  if (current && current.process.exitCode === null) await stop(current);
});

describe('npm start without Java', () => {
  it('says in one line how to install it, and exits non-zero', () => {
    let failure: { status: number; stderr: string } | undefined;
    try {
      execFileSync(NODE, ['lib/local/main.ts', '--port', '0', '--data-dir', dataDirectory], {
        cwd: REPO,
        env: { ...process.env, PATH: '/nonexistent' },
        encoding: 'utf8',
        stdio: 'pipe',
      });
    } catch (error) {
      failure = error as { status: number; stderr: string };
    }
    expect(failure?.status).toBe(1);
    const lines = (failure?.stderr ?? '').trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/Java 17\+ is required.*apt-get install -y openjdk-17-jre-headless/);
  });
});

describe('npm start: the local control plane', () => {
  let sessionToken = '';

  it('serves GET /v1/billing/plans to a session from /_local/sign-in, and 401 without one', async () => {
    current = await start(['--fresh']);
    const signIn = await json(
      await fetch(`${current.url}/_local/sign-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ login: 'alice' }),
      }),
    );
    expect(signIn.status).toBe(200);
    expect(signIn.body).toMatchObject({ sessionToken: expect.any(String), tenantId: expect.any(String) });
    sessionToken = signIn.body.sessionToken;

    const plans = await json(
      await fetch(`${current.url}/v1/billing/plans`, {
        headers: { authorization: `Bearer ${sessionToken}` },
      }),
    );
    expect(plans.status).toBe(200);
    expect(
      plans.body.plans.map((plan: { value: string; monthlyPrice: { amount: number } }) => [
        plan.value,
        plan.monthlyPrice.amount,
      ]),
    ).toEqual([
      ['standard', 4000],
      ['plus', 5000],
      ['pro', 6000],
    ]);
    // The capacity seed (lib/local/capacity.json) makes every Plan placeable in `eu`.
    expect(plans.body.plans.every((plan: { placeable: boolean }) => plan.placeable)).toBe(true);

    const anonymous = await fetch(`${current.url}/v1/billing/plans`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('x-request-id')).toBeTruthy();
    expect((await json(anonymous)).body.error.code).toBe('missing_session');
  }, 90_000);

  it('the session cookie works as well as the Bearer header', async () => {
    const running = current as Running;
    const response = await fetch(`${running.url}/v1/billing/plans`, {
      headers: { cookie: `scp_session=${sessionToken}` },
    });
    expect(response.status).toBe(200);
  });

  it('reads and advances the clock', async () => {
    const running = current as Running;
    const before = await json(await fetch(`${running.url}/_local/clock`));
    const advanced = await json(
      await fetch(`${running.url}/_local/clock/advance`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ seconds: 3 * 86400 }),
      }),
    );
    expect(advanced.status).toBe(200);
    expect(Date.parse(advanced.body.now) - Date.parse(before.body.now)).toBeGreaterThanOrEqual(
      3 * 86400 * 1000,
    );
    const refused = await fetch(`${running.url}/_local/clock/advance`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ seconds: -5 }),
    });
    expect(refused.status).toBe(400);
  });

  it('Ctrl-C stops it and leaves no Java process behind', async () => {
    const running = current as Running;
    expect(javaProcessesOfThisRun().length).toBeGreaterThan(0);
    expect(await stop(running)).toBe(0);
    expect(javaProcessesOfThisRun()).toEqual([]);
  });

  it('keeps its data across restarts: the session still works', async () => {
    current = await start();
    const response = await fetch(`${current.url}/v1/billing/plans`, {
      headers: { authorization: `Bearer ${sessionToken}` },
    });
    expect(response.status).toBe(200);
    expect(await stop(current)).toBe(0);
  }, 90_000);

  it('--fresh starts from an empty database: the old session is gone', async () => {
    current = await start(['--fresh']);
    const response = await fetch(`${current.url}/v1/billing/plans`, {
      headers: { authorization: `Bearer ${sessionToken}` },
    });
    expect(response.status).toBe(401);
    expect(await stop(current)).toBe(0);
    expect(javaProcessesOfThisRun()).toEqual([]);
  }, 90_000);
});
