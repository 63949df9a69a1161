import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll } from 'vitest';
import { REPO_ROOT } from '../../lib/constants.ts';

/**
 * The child processes of the "outlives a kill" tests: each runs the local stand-ins
 * (test/support/outlive-child.ts) on one data folder of the file's, and is killed with SIGKILL
 * mid-work; a new child on the same folder must carry on. The folder and any child left running
 * are cleaned up after the file.
 */
export const outliveChildren = (prefix: string) => {
  const dataDirectory = mkdtempSync(path.join(tmpdir(), prefix));
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dataDirectory, { recursive: true, force: true });
  });

  /** Starts a child on the folder, each Wait lasting `waitMs`; answers it and the endpoints it printed. */
  const startChild = async <Endpoints>(
    waitMs: number,
    ...extra: string[]
  ): Promise<{ child: ChildProcess; endpoints: Endpoints }> => {
    const child = spawn(
      process.execPath,
      ['test/support/outlive-child.ts', dataDirectory, String(waitMs), ...extra],
      {
        cwd: REPO_ROOT,
        env: { PATH: process.env.PATH ?? '', POWERTOOLS_LOG_LEVEL: 'SILENT' },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    children.push(child);
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    const first = await new Promise<string>((resolve, reject) => {
      lines.once('line', resolve);
      child.once('exit', (code) => reject(new Error(`the child exited (${code}) before it listened`)));
    });
    return { child, endpoints: JSON.parse(first) as Endpoints };
  };

  return { dataDirectory, startChild };
};

/** Kills a child with SIGKILL; resolves once it has exited. */
export const killed = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
