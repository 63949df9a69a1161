import { afterAll } from 'vitest';
import { startFaultProxy } from '../../lib/local/fault-proxy.ts';
import {
  DEPENDENCIES,
  type Dependency,
  FAULT_CATALOG,
  FaultBoard,
  type FaultName,
} from '../../lib/local/faults.ts';

/**
 * Faults on demand from tests: the same as `/_local/faults` (lib/local/routes/faults.ts), on a
 * control plane in this process (its `cloud.faults` board) or over HTTP (a `npm start` server).
 */

/**
 * The dependencies the fault catalog names, as issue 25 asks for them (sorted): the board's unit
 * test holds `FAULT_CATALOG` to this list, the e2e test holds what `/_local/faults` shows to it.
 */
export const ISSUE_FAULT_DEPENDENCIES = ['mail', 'processor', 'queue', 'storage', 'table', 'workflow'];

export interface ArmOptions {
  operation?: string;
  times?: number;
  share?: number;
}

/** Arms `fault` on `dependency` over HTTP; answers what the server armed. */
export const armFault = async (
  url: string,
  dependency: Dependency,
  fault: FaultName,
  options: ArmOptions = {},
) => {
  const response = await fetch(`${url}/_local/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ dependency, fault, ...options }),
  });
  if (response.status !== 201) throw new Error(`arming failed: ${response.status} ${await response.text()}`);
  return response.json();
};

/** What a server has armed and what fired (`GET /_local/faults`). */
export const faultStatus = async (url: string) => {
  const response = await fetch(`${url}/_local/faults`);
  return (await response.json()) as {
    armed: { dependency: string; fault: string; operation: string }[];
    fired: Record<string, number>;
    byFault: Record<string, number>;
    total: number;
  };
};

/** Disarms every fault of a server (the counts stay). */
export const disarmFaults = async (url: string) => {
  await fetch(`${url}/_local/faults`, { method: 'DELETE' });
};

/** Every `dependency:fault` of the catalog (what a chaos run arms). */
export const everyFaultKind = (): { dependency: Dependency; fault: FaultName }[] =>
  DEPENDENCIES.flatMap((dependency) =>
    (FAULT_CATALOG[dependency].faults as readonly FaultName[]).map((fault) => ({ dependency, fault })),
  );

/**
 * Arms every kind of the catalog on a board, on every operation: about `share` of each
 * dependency's calls fault, spread evenly over its kinds.
 */
export const armEveryKind = (board: FaultBoard, share: number) => {
  for (const { dependency, fault } of everyFaultKind())
    board.arm({ dependency, fault, share: share / FAULT_CATALOG[dependency].faults.length });
};

/**
 * This file's table calls through a fault proxy in front of DynamoDB Local, armed with the board
 * answered. Call it at the top of a test file, before its first table call, so the store's client
 * is built on the proxy; the proxy stops (and the table goes direct again) in `afterAll`.
 */
export const tableFaultsForFile = async (seed: number): Promise<FaultBoard> => {
  const board = new FaultBoard({ seed });
  const direct = process.env.AWS_ENDPOINT_URL_DYNAMODB ?? '';
  const proxy = await startFaultProxy('table', direct, board);
  process.env.AWS_ENDPOINT_URL_DYNAMODB = proxy.endpoint;
  // Runs after the control plane stopped; the worker's own clean-up (its table) then goes direct.
  afterAll(async () => {
    board.disarm();
    process.env.AWS_ENDPOINT_URL_DYNAMODB = direct;
    await proxy.stop();
  });
  return board;
};
