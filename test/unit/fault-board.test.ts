import { describe, expect, it } from 'vitest';
import { AdjustableClock } from '../../lib/local/clock.ts';
import { ArmError, FAULT_CATALOG, FaultBoard } from '../../lib/local/faults.ts';
import { LocalApiGateway } from '../../lib/local/http-adapter.ts';
import { localRoutes } from '../../lib/local/routes/index.ts';
import type { LocalSweeper } from '../../lib/local/sweeper.ts';
import { ISSUE_FAULT_DEPENDENCIES } from '../support/faults.ts';

/** The local cloud's fault board (issue 25): what it arms, when a call meets a fault, what it counts. */
describe('the fault board', () => {
  it('fails exactly the next N matching calls, then disarms itself', () => {
    const lines: string[] = [];
    const board = new FaultBoard({ log: (line) => lines.push(line) });
    board.arm({ dependency: 'processor', operation: 'refunds', fault: '500', times: 2 });
    expect(board.draw('processor', 'update_items')).toBeUndefined();
    expect(board.draw('processor', 'refunds')).toBe('500');
    expect(board.draw('mail', 'send')).toBeUndefined();
    expect(board.draw('processor', 'refunds')).toBe('500');
    expect(board.draw('processor', 'refunds')).toBeUndefined();
    const status = board.status();
    expect(status.armed).toEqual([]);
    expect(status.fired).toEqual({ 'processor.refunds:500': 2 });
    expect(status.byFault).toEqual({ 'processor:500': 2 });
    expect(status.total).toBe(2);
    expect(lines).toEqual([
      'fault: processor refunds 500 (#1 of this kind)',
      'fault: processor refunds 500 (#2 of this kind)',
    ]);
  });

  it('fails about a share of the calls, the same ones for the same seed', () => {
    const draws = (seed: number) => {
      const board = new FaultBoard({ seed });
      board.arm({ dependency: 'table', fault: 'throttle', share: 0.1 });
      return Array.from({ length: 2000 }, () => board.draw('table', 'GetItem') ?? '-');
    };
    const first = draws(7);
    expect(draws(7)).toEqual(first);
    expect(draws(8)).not.toEqual(first);
    const fired = first.filter((d) => d === 'throttle').length;
    expect(fired).toBeGreaterThan(140);
    expect(fired).toBeLessThan(260);
  });

  it('a transaction conflict only meets transactions', () => {
    const board = new FaultBoard();
    board.arm({ dependency: 'table', fault: 'transaction-conflict', times: 1 });
    expect(board.draw('table', 'PutItem')).toBeUndefined();
    expect(board.draw('table', 'TransactWriteItems')).toBe('transaction-conflict');
    expect(() =>
      board.arm({ dependency: 'table', operation: 'GetItem', fault: 'transaction-conflict', times: 1 }),
    ).toThrow(ArmError);
  });

  it('refuses what is not in the catalog, naming the field', () => {
    const board = new FaultBoard();
    const field = (request: Parameters<FaultBoard['arm']>[0]) => {
      try {
        board.arm(request);
        return 'armed';
      } catch (error) {
        return (error as ArmError).field;
      }
    };
    // biome-ignore lint/suspicious/noExplicitAny: a wrong value on purpose
    expect(field({ dependency: 'mail', fault: 'throttle' as any, times: 1 })).toBe('fault');
    expect(field({ dependency: 'mail', operation: 'receive', fault: 'refused', times: 1 })).toBe('operation');
    expect(field({ dependency: 'mail', fault: 'refused' })).toBe('times');
    expect(field({ dependency: 'mail', fault: 'refused', times: 1, share: 0.5 })).toBe('times');
    expect(board.status().armed).toEqual([]);
  });

  it('disarms one dependency or all, keeping what fired', () => {
    const board = new FaultBoard();
    board.arm({ dependency: 'queue', fault: 'refused', share: 1 });
    board.arm({ dependency: 'workflow', fault: 'refused', share: 1 });
    expect(board.draw('queue', 'receive')).toBe('refused');
    expect(board.disarm('queue')).toBe(1);
    expect(board.draw('queue', 'receive')).toBeUndefined();
    expect(board.draw('workflow', 'start')).toBe('refused');
    expect(board.disarm()).toBe(1);
    expect(board.status().total).toBe(2);
  });

  it('the catalog names every dependency of the issue, with the faults it asks for', () => {
    expect(Object.keys(FAULT_CATALOG).sort()).toEqual(ISSUE_FAULT_DEPENDENCIES);
    expect(FAULT_CATALOG.processor.faults).toEqual([
      '500',
      '429',
      '429-retry-after',
      'timeout',
      'reset',
      'applied-answer-lost',
    ]);
  });
});

describe('the seed set from outside (PUT /_local/faults)', () => {
  const board = new FaultBoard({ seed: 1 });
  const gateway = new LocalApiGateway(
    localRoutes(new AdjustableClock(), {} as LocalSweeper, { faults: board }),
    async () => ({ isAuthorized: false }),
  );
  const put = (body: unknown) =>
    gateway.dispatch({
      method: 'PUT',
      url: '/_local/faults',
      headers: { 'content-type': 'application/json' },
      body: Buffer.from(JSON.stringify(body)),
      sourceIp: '127.0.0.1',
    });
  const draws = () => Array.from({ length: 200 }, () => board.draw('mail', 'send') ?? '-').join('');

  it('restarts the draws on that seed: the same seed draws the same faults again, another seed others', async () => {
    board.arm({ dependency: 'mail', fault: 'refused', share: 0.3 });
    const answer = await put({ seed: 37 });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body.toString('utf8'))).toMatchObject({ seed: 37 });
    const first = draws();
    expect(first).toContain('refused');
    expect((await put({ seed: 37 })).status).toBe(200);
    expect(draws()).toBe(first);
    expect((await put({ seed: 38 })).status).toBe(200);
    expect(draws()).not.toBe(first);
    board.disarm();
  });

  it('refuses a seed that is not a whole number from 0 to 2^32-1, and keeps the one it has', async () => {
    await put({ seed: 5 });
    for (const seed of [-1, 1.5, 2 ** 32, '7']) {
      const answer = await put({ seed });
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body.toString('utf8')).error).toMatchObject({ field: 'seed' });
    }
    expect(board.status().seed).toBe(5);
  });
});
