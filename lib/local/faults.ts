/**
 * Faults on demand for the local cloud: the next N calls, or a share p of the calls, of one
 * operation of one external dependency fail in one chosen way. The board only decides and counts;
 * where a fault is carried out is the local wiring's part (the fault proxies in front of the AWS
 * stand-ins, lib/local/fault-proxy.ts, and the processor emulator's HTTP front), so no code of
 * functions/ knows about it. `npm start` arms it with `/_local/faults`; tests with
 * test/support/faults.ts.
 */

/** Each dependency, its operations (as classified from the request) and the ways it can fail. */
export const FAULT_CATALOG = {
  processor: {
    operations: [
      'create_checkout_session',
      'read_subscription',
      'list_subscriptions',
      'update_items',
      'invoices',
      'refunds',
      'portal_sessions',
      'previews',
      'other',
    ],
    faults: ['500', '429', '429-retry-after', 'timeout', 'reset', 'applied-answer-lost'],
  },
  table: {
    operations: [
      'GetItem',
      'Query',
      'PutItem',
      'UpdateItem',
      'DeleteItem',
      'TransactWriteItems',
      'TransactGetItems',
      'BatchGetItem',
      'BatchWriteItem',
      'Scan',
    ],
    faults: ['throttle', 'transaction-conflict'],
  },
  queue: { operations: ['receive', 'delete'], faults: ['refused'] },
  mail: { operations: ['send'], faults: ['refused', 'timeout'] },
  workflow: { operations: ['start'], faults: ['refused', 'applied-answer-lost'] },
  storage: { operations: ['upload_part'], faults: ['refused'] },
} as const;

export type Dependency = keyof typeof FAULT_CATALOG;
export const DEPENDENCIES = Object.keys(FAULT_CATALOG) as Dependency[];
export type FaultName = (typeof FAULT_CATALOG)[Dependency]['faults'][number];

/** Faults that only make sense for some operations (a conflict is a transaction's). */
const APPLIES: Partial<Record<FaultName, (operation: string) => boolean>> = {
  'transaction-conflict': (operation) => operation === 'TransactWriteItems',
};

export const faultApplies = (fault: FaultName, operation: string): boolean =>
  APPLIES[fault]?.(operation) ?? true;

/** What to arm: one dependency, one of its faults, on one operation or all (`*`). */
export interface ArmRequest {
  dependency: Dependency;
  fault: FaultName;
  /** An operation of the dependency; every one when absent. */
  operation?: string;
  /** The next `times` matching calls fail (then the fault is disarmed). */
  times?: number;
  /** Each matching call fails with this probability (0 < share <= 1), until disarmed. */
  share?: number;
}

export interface ArmedFault {
  id: number;
  dependency: Dependency;
  operation: string;
  fault: FaultName;
  /** Calls left (for `times`); null for a share. */
  remaining: number | null;
  share: number | null;
  fired: number;
}

export interface FiredFault {
  dependency: Dependency;
  operation: string;
  fault: FaultName;
}

/** A kind as counted and shown: `dependency.operation:fault`. */
export const kindOf = (fired: FiredFault): string => `${fired.dependency}.${fired.operation}:${fired.fault}`;

/** mulberry32: a small seeded generator, so a chaos run's faults are repeatable for one seed. */
export const seededRandom = (seed: number): (() => number) => {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

export class ArmError extends Error {
  readonly field: string;
  constructor(field: string, message: string) {
    super(message);
    this.name = 'ArmError';
    this.field = field;
  }
}

export class FaultBoard {
  private armed: ArmedFault[] = [];
  private nextId = 1;
  private readonly counts = new Map<string, number>();
  private random: () => number;
  private seed: number;
  private readonly log: (line: string) => void;

  constructor(options: { seed?: number; log?: (line: string) => void } = {}) {
    this.seed = options.seed ?? 1;
    this.random = seededRandom(this.seed);
    this.log = options.log ?? (() => undefined);
  }

  /**
   * Restarts the generator on `seed` (a chaos run's, or one set with `PUT /_local/faults`): from
   * here on, the same calls against the same armed shares draw the same faults.
   */
  reseed(seed: number): void {
    this.seed = seed;
    this.random = seededRandom(seed);
  }

  /** Arms a fault; refuses (ArmError, naming the field) what is not in the catalog. */
  arm(request: ArmRequest): ArmedFault {
    const entry = FAULT_CATALOG[request.dependency];
    if (!entry) throw new ArmError('dependency', `"dependency" must be one of ${DEPENDENCIES.join(', ')}.`);
    if (!(entry.faults as readonly string[]).includes(request.fault))
      throw new ArmError(
        'fault',
        `"fault" for ${request.dependency} must be one of ${entry.faults.join(', ')}.`,
      );
    const operation = request.operation ?? '*';
    if (operation !== '*' && !(entry.operations as readonly string[]).includes(operation))
      throw new ArmError(
        'operation',
        `"operation" for ${request.dependency} must be one of ${entry.operations.join(', ')} (or left out for all).`,
      );
    if (operation !== '*' && !faultApplies(request.fault, operation))
      throw new ArmError('operation', `"${request.fault}" does not happen to ${operation}.`);
    if ((request.times === undefined) === (request.share === undefined))
      throw new ArmError('times', 'Send either "times" (the next N calls) or "share" (a share p of calls).');
    const armed: ArmedFault = {
      id: this.nextId++,
      dependency: request.dependency,
      operation,
      fault: request.fault,
      remaining: request.times ?? null,
      share: request.share ?? null,
      fired: 0,
    };
    this.armed.push(armed);
    return armed;
  }

  /** Disarms every fault (or those of one dependency); what fired stays counted. */
  disarm(dependency?: Dependency): number {
    const before = this.armed.length;
    this.armed = dependency ? this.armed.filter((a) => a.dependency !== dependency) : [];
    return before - this.armed.length;
  }

  /** Forgets what fired (a new run). */
  resetCounts(): void {
    this.counts.clear();
  }

  /**
   * The fault a call of `operation` meets now, if any (counted and logged when it fires). The first
   * armed fault that matches and draws decides; the others are not consulted.
   */
  draw(dependency: Dependency, operation: string): FaultName | undefined {
    for (const armed of this.armed) {
      if (armed.dependency !== dependency) continue;
      if (armed.operation !== '*' && armed.operation !== operation) continue;
      if (!faultApplies(armed.fault, operation)) continue;
      if (armed.remaining !== null) {
        armed.remaining--;
        if (armed.remaining <= 0) this.armed.splice(this.armed.indexOf(armed), 1);
      } else if (this.random() >= (armed.share ?? 0)) continue;
      armed.fired++;
      const fired = { dependency, operation, fault: armed.fault };
      const kind = kindOf(fired);
      const count = (this.counts.get(kind) ?? 0) + 1;
      this.counts.set(kind, count);
      this.log(`fault: ${dependency} ${operation} ${armed.fault} (#${count} of this kind)`);
      return armed.fault;
    }
    return undefined;
  }

  /** What is armed and what fired, per kind and per `dependency:fault`. */
  status() {
    const fired = Object.fromEntries([...this.counts.entries()].sort(([a], [b]) => a.localeCompare(b)));
    const byFault: Record<string, number> = {};
    for (const [kind, count] of this.counts) {
      const [dependency, rest = ''] = kind.split('.', 2);
      const fault = rest.slice(rest.indexOf(':') + 1);
      const key = `${dependency}:${fault}`;
      byFault[key] = (byFault[key] ?? 0) + count;
    }
    return {
      seed: this.seed,
      armed: this.armed.map((a) => ({ ...a })),
      fired,
      byFault,
      total: [...this.counts.values()].reduce((sum, n) => sum + n, 0),
    };
  }
}
