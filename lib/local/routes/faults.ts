import * as v from 'valibot';
import { refuse } from '../../../functions/core/refusals/index.ts';
import { httpHandler } from '../../../functions/http/handler.ts';
import {
  ArmError,
  DEPENDENCIES,
  type Dependency,
  FAULT_CATALOG,
  type FaultBoard,
  type FaultName,
} from '../faults.ts';
import type { AdapterRoute } from '../http-adapter.ts';
import { refuseUnknownQuery } from './query.ts';

const FaultArmBody = v.strictObject({
  dependency: v.picklist(DEPENDENCIES, `one of ${DEPENDENCIES.join(', ')}`),
  fault: v.string('a fault of the dependency (GET /_local/faults lists them)'),
  operation: v.optional(v.string('an operation of the dependency (GET /_local/faults lists them)')),
  times: v.optional(
    v.pipe(
      v.number('a whole number of calls'),
      v.integer('a whole number of calls'),
      v.minValue(1, 'a whole number of calls, 1 or more'),
      v.maxValue(1_000_000, 'at most 1000000 calls'),
    ),
  ),
  share: v.optional(
    v.pipe(
      v.number('a share of calls, more than 0 and at most 1'),
      v.gtValue(0, 'a share of calls, more than 0 and at most 1'),
      v.maxValue(1, 'a share of calls, more than 0 and at most 1'),
    ),
  ),
});

const FaultSeedBody = v.strictObject({
  seed: v.pipe(
    v.number('a whole number from 0 to 4294967295'),
    v.integer('a whole number from 0 to 4294967295'),
    v.minValue(0, 'a whole number from 0 to 4294967295'),
    v.maxValue(0xffffffff, 'a whole number from 0 to 4294967295'),
  ),
});

/**
 * `/_local/faults`: GET shows the catalog (dependencies, operations, faults), the seed, what is
 * armed and what fired per kind; POST arms the next `times` calls or a `share` of calls of one
 * fault; PUT `{ "seed" }` restarts the board's generator on that seed (so a run's draws repeat);
 * DELETE disarms all (or `?dependency=`), keeping the counts.
 */
export const faultRoutes = (board: FaultBoard): AdapterRoute[] => [
  {
    method: 'GET',
    path: '/_local/faults',
    auth: 'none',
    handler: httpHandler({ auth: 'none' }, async () => ({
      status: 200,
      body: { catalog: FAULT_CATALOG, ...board.status() },
    })),
  },
  {
    method: 'POST',
    path: '/_local/faults',
    auth: 'none',
    handler: httpHandler({ auth: 'none', body: FaultArmBody }, async ({ body }) => {
      try {
        const armed = board.arm({
          dependency: body.dependency,
          fault: body.fault as FaultName,
          ...(body.operation !== undefined ? { operation: body.operation } : {}),
          ...(body.times !== undefined ? { times: body.times } : {}),
          ...(body.share !== undefined ? { share: body.share } : {}),
        });
        return { status: 201, body: armed };
      } catch (error) {
        if (error instanceof ArmError)
          throw refuse('invalid_field', { what: `Field ${error.message}` }, { field: error.field });
        throw error;
      }
    }),
  },
  {
    method: 'PUT',
    path: '/_local/faults',
    auth: 'none',
    handler: httpHandler({ auth: 'none', body: FaultSeedBody }, async ({ body }) => {
      board.reseed(body.seed);
      return { status: 200, body: board.status() };
    }),
  },
  {
    method: 'DELETE',
    path: '/_local/faults',
    auth: 'none',
    handler: httpHandler({ auth: 'none' }, async ({ query }) => {
      refuseUnknownQuery(query, ['dependency']);
      const dependency = query.dependency;
      if (dependency !== undefined && !(DEPENDENCIES as string[]).includes(dependency))
        throw refuse(
          'invalid_field',
          { what: `Query parameter "dependency" must be one of ${DEPENDENCIES.join(', ')}.` },
          { field: 'dependency' },
        );
      const disarmed = board.disarm(dependency as Dependency | undefined);
      return { status: 200, body: { disarmed, ...board.status() } };
    }),
  },
];
