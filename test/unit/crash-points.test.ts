import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { crashPoint, installCrashPoints } from '../../functions/ports/crash-point.ts';
import { armCrashPoints, crashLogFile, crashPointsFile } from '../../lib/crash-points.ts';
import { CRASH_RUN_POINTS, planLife, pointLabel } from '../support/crash.ts';

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

/** How the crash run (test/support/crash.ts) plans each life of our process. */
describe('crash run: a life plan', () => {
  const timing = { randomShare: 0.3, randomLifeMs: [2_000, 8_000] as [number, number], pointLifeMs: 20_000 };

  it('a point life arms every point not yet fired, and none that has fired', () => {
    const fired = new Set(['checkout.session-created', 'plan-change.task:prepare', 'refund.refunded']);
    const plan = planLife([0.9, 0.5, 0.5], fired, timing);
    expect(plan.kind).toBe('point');
    const armed = plan.arm.map(pointLabel);
    expect(armed).toHaveLength(CRASH_RUN_POINTS.length - 3);
    for (const label of fired) expect(armed).not.toContain(label);
    expect(armed).toContain('plan-change.task:switch');
    expect(plan.arm.every((arm) => arm.hit === 1)).toBe(true);
  });

  it('once every point has fired, a point life arms one, drawn from the seed', () => {
    const fired = new Set(CRASH_RUN_POINTS.map(pointLabel));
    const plan = planLife([0.9, 0, 0.99], fired, timing);
    expect(plan.arm).toEqual([{ ...CRASH_RUN_POINTS[0], hit: 3 }]);
  });

  it('a random life arms nothing and works the drawn time', () => {
    expect(planLife([0.1, 0.5, 0.5], new Set(), timing)).toEqual({ arm: [], kind: 'random', workMs: 6_000 });
  });

  it('the same draws plan the same life (a seed repeats a run)', () => {
    const fired = new Set(['email.sent']);
    expect(planLife([0.7, 0.2, 0.4], fired, timing)).toEqual(planLife([0.7, 0.2, 0.4], fired, timing));
  });
});
