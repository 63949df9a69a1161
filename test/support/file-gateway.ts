import { afterAll, beforeAll } from 'vitest';
import type { ProcessorEmulator } from '../../lib/local/processor/emulator.ts';
import { type TestControlPlane, testGateway } from './gateway.ts';

type GatewayOptions = NonNullable<Parameters<typeof testGateway>[0]>;

/**
 * A stand-in for an object that exists only once `beforeAll` has run: it forwards every read,
 * write and method call to `target()`, so a file can name it at module level.
 */
const forwardTo = <T extends object>(target: () => T): T =>
  new Proxy({} as T, {
    get: (_, key) => {
      const real = target();
      const value = Reflect.get(real, key);
      return typeof value === 'function' ? value.bind(real) : value;
    },
    set: (_, key, value) => Reflect.set(target(), key, value),
    has: (_, key) => Reflect.has(target(), key),
  });

/**
 * This file's control plane (test/support/gateway.ts), started in `beforeAll` and stopped in
 * `afterAll`: `const { api, emulator } = gatewayForFile({ processor: true })`. Both names may be
 * used in any test or hook; `emulator` only with `processor: true`. `beforeStop` runs first in
 * `afterAll` (say, to let every task the test held go, so that the workflows can stop).
 */
export const gatewayForFile = (options: GatewayOptions = {}, hooks: { beforeStop?: () => void } = {}) => {
  let plane: TestControlPlane | undefined;
  const started = (): TestControlPlane => {
    if (!plane) throw new Error('the control plane starts in beforeAll: use it in a test or a hook');
    return plane;
  };
  beforeAll(async () => {
    plane = await testGateway(options);
  });
  afterAll(async () => {
    hooks.beforeStop?.();
    await plane?.stop();
  });
  return {
    api: forwardTo(started),
    emulator: forwardTo(() => {
      const emulator = started().emulator;
      if (!emulator) throw new Error('gatewayForFile({ processor: true }) has the emulator');
      return emulator;
    }) as ProcessorEmulator,
  };
};

/**
 * Sets these environment variables (`undefined`: unset) for this file, from `beforeAll` on, and
 * gives back the values they had in `afterAll`. Called before gatewayForFile, the control plane
 * starts with them.
 */
export const environmentForFile = (values: Record<string, string | undefined>) => {
  const saved = new Map<string, string | undefined>();
  const apply = (from: Iterable<[string, string | undefined]>) => {
    for (const [name, value] of from)
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
  };
  beforeAll(() => {
    for (const name of Object.keys(values)) saved.set(name, process.env[name]);
    apply(Object.entries(values));
  });
  afterAll(() => apply(saved));
};
