import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../../lib/constants.ts';

/**
 * `npm run ops` as an operator runs it: a separate process (`node lib/ops/cli.ts ...args`) that
 * sees only PATH and `env` (so it finds the local cloud through a data folder, or `env`).
 */
export const runOps = (args: string[], env: Record<string, string> = {}) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      // The Node running the tests (the repository's own, node_modules/.bin/node, under npm test):
      // a path into node_modules does not resolve in Stryker's sandbox when node_modules is a link.
      process.execPath,
      ['lib/ops/cli.ts', ...args],
      { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '', POWERTOOLS_LOG_LEVEL: 'SILENT', ...env } },
      (error, stdout, stderr) => {
        const code = (error as { code?: number | string } | null)?.code;
        // A string code (ENOENT, ...) is a process that never ran: say so rather than answer NaN.
        if (typeof code === 'string') resolve({ code: -1, stdout, stderr: `${stderr}${error?.message}` });
        else resolve({ code: error ? (code ?? 1) : 0, stdout, stderr });
      },
    );
  });

/** This process's AWS settings and table: where a separate process finds the test's local cloud. */
export const localCloudEnvironment = (): Record<string, string> =>
  Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] =>
        (entry[0].startsWith('AWS_') || entry[0] === 'TABLE_NAME') && entry[1] !== undefined,
    ),
  );

/**
 * A local control plane's data folder as `npm start` leaves it: endpoints.json (the API's URL and
 * the environment of the test's local cloud, with `environment` over it) and, with `offsetMs`,
 * clock.json (the local clock's offset).
 */
export const opsDataFolder = (
  options: { api?: string; environment?: Record<string, string>; offsetMs?: number } = {},
) => {
  const directory = mkdtempSync(path.join(tmpdir(), 'ops-data-'));
  writeFileSync(
    path.join(directory, 'endpoints.json'),
    JSON.stringify({
      api: options.api ?? 'http://127.0.0.1:9',
      environment: { ...localCloudEnvironment(), ...options.environment },
    }),
  );
  if (options.offsetMs !== undefined)
    writeFileSync(path.join(directory, 'clock.json'), JSON.stringify({ offsetMs: options.offsetMs }));
  return directory;
};
