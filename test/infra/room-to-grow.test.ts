import { App } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { buildApp, synthCheckContext } from '../../lib/infra/app.ts';
import { resourceCounts, stackFiles } from '../../lib/infra/assembly.ts';
import { routeArea, routeAreas, STACK_RESOURCE_BUDGET } from '../../lib/infra/constructs/api.ts';
import { type Route, routes } from '../../lib/routes.ts';
import { nagViolations, synthesizedStack } from '../support/synthesized-stack.ts';

/**
 * Issue 22, item 9: CloudFormation allows 500 resources per stack; the one stack held 419. Each
 * feature area's routes are a nested stack (lib/infra/constructs/api.ts), so 60 more routes fit:
 * every stack stays under our budget of STACK_RESOURCE_BUDGET whether the 60 come as a new
 * feature (one new area) or spread over today's areas.
 */

const { stacks, assemblyDirectory } = synthesizedStack();

const LIMIT = 500;
const EXTRA_ROUTES = 60;

/** A route as a new feature would add one: a function of its own, on the table, with a secret. */
const extraRoute = (index: number, path: string): Route => ({
  id: `Grown${index}`,
  method: index % 2 ? 'POST' : 'GET',
  path,
  handler: 'functions/api/get-me.ts',
  auth: index % 5 ? 'session' : 'dispatcher',
  table: { actions: ['GetItem', 'Query', ...(index % 2 ? (['PutItem', 'UpdateItem'] as const) : [])] },
  ...(index % 3 ? {} : { secrets: ['processorApiKey'] as const }),
  summary: 'A route of the room-to-grow test',
});

/** Synthesizes (not bundled; cdk-nag runs) with `extra` routes; resource counts by stack path. */
const countsWith = (extra: Route[]) => {
  const { app, stack } = buildApp(
    new App({ context: { ...synthCheckContext(), 'aws:cdk:bundling-stacks': [] } }),
    { routes: [...routes, ...extra] },
  );
  const assembly = app.synth();
  expect(nagViolations(assembly.directory)).toEqual([]);
  return resourceCounts(assembly.directory, stackFiles(stack));
};

const report = (title: string, counts: Map<string, number>) =>
  console.log(
    `${title}\n${[...counts].map(([path, count]) => `  ${String(count).padStart(3)}  ${path}`).join('\n')}`,
  );

describe('room to grow', () => {
  it('today: the root stack and one nested stack per area, each well under the budget', () => {
    const counts = resourceCounts(assemblyDirectory, stacks);
    report('resources per stack (today)', counts);
    expect(counts.size).toBe(1 + routeAreas(routes).size);
    for (const [path, count] of counts) expect(count, path).toBeLessThanOrEqual(STACK_RESOURCE_BUDGET);
    expect(STACK_RESOURCE_BUDGET).toBeLessThan(LIMIT);
    // The root no longer holds the routes: it would take far more than 60 routes to fill it.
    expect(counts.get(stacks[0]?.path ?? '')).toBeLessThan(150);
  });

  it(`${EXTRA_ROUTES} more routes as one new feature area: every stack stays under the budget`, () => {
    const extra = Array.from({ length: EXTRA_ROUTES }, (_, i) => extraRoute(i, `/v1/grown/item-${i}`));
    const counts = countsWith(extra);
    report(`resources per stack (+${EXTRA_ROUTES} routes in one new area)`, counts);
    expect(counts.size).toBe(1 + routeAreas(routes).size + 1);
    for (const [path, count] of counts) expect(count, path).toBeLessThanOrEqual(STACK_RESOURCE_BUDGET);
  }, 180_000);

  it(`${EXTRA_ROUTES} more routes spread over today's areas: every stack stays under the budget`, () => {
    const prefixes = [...routeAreas(routes).values()].map((areaRoutes) => {
      const [first] = areaRoutes;
      if (!first) throw new Error('an empty area');
      return first.path
        .split('/')
        .slice(0, first.path.startsWith('/v1/') ? 3 : 2)
        .join('/');
    });
    const extra = Array.from({ length: EXTRA_ROUTES }, (_, i) =>
      extraRoute(i, `${prefixes[i % prefixes.length]}/grown-${i}`),
    );
    expect(new Set(extra.map(routeArea)).size).toBe(prefixes.length);
    const counts = countsWith(extra);
    report(`resources per stack (+${EXTRA_ROUTES} routes spread over the areas)`, counts);
    expect(counts.size).toBe(1 + routeAreas(routes).size);
    for (const [path, count] of counts) expect(count, path).toBeLessThanOrEqual(STACK_RESOURCE_BUDGET);
  }, 180_000);

  it('an area over the budget fails the synth with what to do', () => {
    const extra = Array.from({ length: 70 }, (_, i) => extraRoute(i, `/v1/stacks/grown-${i}`));
    const { app } = buildApp(
      new App({ context: { ...synthCheckContext(), 'aws:cdk:bundling-stacks': [] } }),
      { routes: [...routes, ...extra] },
    );
    expect(() => app.synth()).toThrow(
      /RoutesStacks has \d+ resources, more than our budget of 450.*`area` in lib\/routes\.ts/s,
    );
  }, 180_000);
});
