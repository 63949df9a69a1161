import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { CRASH_POINTS, type CrashPointName, installCrashPoints } from '../functions/ports/crash-point.ts';

/**
 * Arming the named kill points of functions/ports/crash-point.ts for a local process (the crash
 * run, test/crash/run.ts): the file `crash-points.json` in the data folder, read once when the
 * process starts, says which point kills the process, and on which hit. An armed point that is
 * reached writes one line to `crash-log.jsonl` beside it (which point, when) and the process kills
 * itself with SIGKILL: no handler runs, nothing is flushed, as when Lambda is stopped mid-line.
 * Without the file nothing is installed (`npm start`, every test).
 */

/** One armed point: `point` (and `detail`, when given, e.g. a Plan Change task's name), on its `hit`th pass. */
export interface ArmedPoint {
  point: CrashPointName;
  detail?: string;
  /** Which pass kills (1: the first); counted from this process's start. */
  hit?: number;
}

export const crashPointsFile = (dataDirectory: string): string =>
  path.join(dataDirectory, 'crash-points.json');
export const crashLogFile = (dataDirectory: string): string => path.join(dataDirectory, 'crash-log.jsonl');

/** What a process read from the data folder: the points armed, or none. */
export const readArmedPoints = (dataDirectory: string): ArmedPoint[] => {
  const file = crashPointsFile(dataDirectory);
  if (!existsSync(file)) return [];
  const armed = (JSON.parse(readFileSync(file, 'utf8')) as { arm?: ArmedPoint[] }).arm ?? [];
  for (const { point } of armed)
    if (!CRASH_POINTS.includes(point))
      throw new Error(`${file}: unknown crash point "${point}" (known: ${CRASH_POINTS.join(', ')})`);
  return armed;
};

/**
 * Arms this process from the data folder's file (read once, now). `kill` is what an armed point
 * does after its log line (tests pass their own; the default is SIGKILL of this very process).
 */
export const armCrashPoints = (
  dataDirectory: string,
  kill: () => void = () => process.kill(process.pid, 'SIGKILL'),
): ArmedPoint[] => {
  const armed = readArmedPoints(dataDirectory);
  if (armed.length === 0) {
    installCrashPoints(undefined);
    return armed;
  }
  const passes = new Map<ArmedPoint, number>();
  installCrashPoints((point, detail) => {
    for (const arm of armed) {
      if (arm.point !== point || (arm.detail !== undefined && arm.detail !== detail)) continue;
      const pass = (passes.get(arm) ?? 0) + 1;
      passes.set(arm, pass);
      if (pass < (arm.hit ?? 1)) continue;
      appendFileSync(
        crashLogFile(dataDirectory),
        `${JSON.stringify({ point, ...(detail ? { detail } : {}), pid: process.pid, at: new Date().toISOString() })}\n`,
      );
      kill();
    }
  });
  return armed;
};
