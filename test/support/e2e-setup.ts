import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import {
  newDataDirectory,
  processesNaming,
  setCapacity,
  startLocalServer,
  stopLocalServer,
} from './local-server.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /**
     * The local control planes the e2e files share, one for each file running at once
     * (test/support/local-cloud.ts claims one for its file).
     */
    sharedClouds: { url: string; dataDirectory: string; logFile: string }[];
  }
}

/**
 * Room for every tenant the e2e files create on the shared server (the seed of lib/local/capacity.json
 * is sized for one person trying it). A test that needs a Plan full fills it and gives it back.
 */
const ROOM = { standard: 200, plus: 200, pro: 50 };
const SEEDED_LOCATIONS = ['eu-central-1a', 'eu-west-1a'];

/**
 * The e2e project's global setup: the shared `npm start`s for the whole run (one per file running at once), in a
 * folder of the run's own.
 * Sweeps run only when a test asks (`--manual-sweep`), and the fleet polls only when ticked, so a
 * test steps time itself. The server logs at DEBUG, every request too (`--verbose`; by default
 * routine request lines are left out), into a file, so a test can read every line
 * (test/e2e/credentials.test.ts looks for secrets there). The teardown stops it and fails the run
 * if any process the run started (anything naming the run's folder: a server, its Java) is left.
 */
/**
 * As many shared servers as e2e files run at once (two: vitest.config.ts); each file claims one
 * that no running file holds (`sharedCloud()`), so a test that steps its server's clock or sweep
 * never steps another file's.
 */
export const SHARED_SERVERS = 2;

/** Starts one shared server in the run's folder, with room for the e2e files' tenants. */
const startSharedServer = async (runDirectory: string, index: number) => {
  const dataDirectory = newDataDirectory(runDirectory);
  const logFile = path.join(runDirectory, `shared-server-${index + 1}.log`);
  const server = await startLocalServer(dataDirectory, ['--fresh', '--manual-sweep', '--verbose'], {
    environment: { POWERTOOLS_LOG_LEVEL: 'DEBUG' },
    logFile,
  });
  await Promise.all(
    SEEDED_LOCATIONS.flatMap((location) =>
      Object.entries(ROOM).map(async ([plan, total]) => {
        const set = await setCapacity(dataDirectory, { location, plan, total });
        if (set.code !== 0) throw new Error(`capacity set failed: ${set.stderr}`);
      }),
    ),
  );
  return { server, cloud: { url: server.url, dataDirectory, logFile } };
};

export default async function setup(project: TestProject) {
  const runDirectory = mkdtempSync(path.join(tmpdir(), 'scp-e2e-run-'));
  project.provide('e2eRunDirectory', runDirectory);
  const started = await Promise.all(
    Array.from({ length: SHARED_SERVERS }, (_, index) => startSharedServer(runDirectory, index)),
  );
  project.provide(
    'sharedClouds',
    started.map(({ cloud }) => cloud),
  );

  return async () => {
    const codes = await Promise.all(started.map(({ server }) => stopLocalServer(server)));
    const left = processesNaming(runDirectory);
    for (const pid of left) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
    const problems = [
      ...codes.flatMap((code, index) =>
        code === 0 ? [] : [`shared npm start ${index + 1} exited with ${code}`],
      ),
      ...(left.length ? [`processes of this run were still running (killed now): ${left.join(', ')}`] : []),
    ];
    if (problems.length) throw new Error(`${problems.join('; ')} (see the logs in ${runDirectory})`);
    // The shared servers' logs (and their data) stay for a run with a failure, to read what happened.
    if (project.vitest.state.getCountOfFailedTests() > 0)
      console.error(`The shared npm starts' logs of this run: ${runDirectory}/shared-server-*.log`);
    else rmSync(runDirectory, { recursive: true, force: true });
  };
}
