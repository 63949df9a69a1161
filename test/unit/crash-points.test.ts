import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { crashPoint, installCrashPoints } from '../../functions/ports/crash-point.ts';
import { armCrashPoints, crashLogFile, crashPointsFile } from '../../lib/crash-points.ts';

/** The named kill points of the crash run (functions/ports/crash-point.ts, lib/crash-points.ts). */
describe('crash points', () => {
  const folders: string[] = [];
  const folder = (arm?: unknown) => {
    const dataDirectory = mkdtempSync(path.join(tmpdir(), 'crash-points-'));
    folders.push(dataDirectory);
    if (arm !== undefined) writeFileSync(crashPointsFile(dataDirectory), JSON.stringify({ arm }));
    return dataDirectory;
  };
  afterEach(() => {
    installCrashPoints(undefined);
    for (const dataDirectory of folders.splice(0)) rmSync(dataDirectory, { recursive: true, force: true });
  });

  it('do nothing when nothing armed them (the cloud, npm start, every other test)', () => {
    let kills = 0;
    expect(armCrashPoints(folder(), () => kills++)).toEqual([]);
    crashPoint('email.sent');
    crashPoint('checkout.session-created');
    expect(kills).toBe(0);
  });

  it('kill on the armed pass of the armed point, after one line in the crash log', () => {
    const dataDirectory = folder([{ point: 'email.sent', hit: 2 }]);
    let kills = 0;
    armCrashPoints(dataDirectory, () => kills++);
    crashPoint('checkout.session-created');
    crashPoint('email.sent');
    expect(kills).toBe(0);
    crashPoint('email.sent');
    expect(kills).toBe(1);
    const logged = JSON.parse(readFileSync(crashLogFile(dataDirectory), 'utf8').trim());
    expect(logged).toMatchObject({ point: 'email.sent', pid: process.pid });
  });

  it("with a detail, only that task's point (one Plan Change task, not the others)", () => {
    let kills = 0;
    armCrashPoints(folder([{ point: 'plan-change.task', detail: 'switch' }]), () => kills++);
    crashPoint('plan-change.task', 'prepare');
    expect(kills).toBe(0);
    crashPoint('plan-change.task', 'switch');
    expect(kills).toBe(1);
  });

  it('refuse an unknown point name (a typo would arm nothing)', () => {
    expect(() => armCrashPoints(folder([{ point: 'email.send' }]), () => undefined)).toThrow(
      /unknown crash point "email.send"/,
    );
  });
});
