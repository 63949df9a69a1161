import { describe, expect, it } from 'vitest';
import { dispatcherRouteThrottles } from '#core/dispatcher.ts';
import { DEFAULT_FLEET_STACKS } from '../../lib/infra/constructs/api.ts';
import { synthesizedStack } from '../support/synthesized-stack.ts';

// What lets the stack carry a large fleet (issue 23): the Dispatcher routes throttled from the
// fleet's size.

const { template } = synthesizedStack();

describe('the API stage', () => {
  it('throttles the Dispatcher routes from the fleet size by the documented formula, the rest at the default', () => {
    const stages = Object.values(template.findResources('AWS::ApiGatewayV2::Stage'));
    expect(stages).toHaveLength(1);
    const { DefaultRouteSettings, RouteSettings } = (
      stages[0] as {
        Properties: {
          DefaultRouteSettings: Record<string, number>;
          RouteSettings: Record<string, Record<string, number>>;
        };
      }
    ).Properties;
    expect(DefaultRouteSettings).toMatchObject({ ThrottlingRateLimit: 200, ThrottlingBurstLimit: 400 });
    const { desiredState, observedState } = dispatcherRouteThrottles(DEFAULT_FLEET_STACKS);
    expect(RouteSettings).toEqual({
      'GET /v1/dispatcher/desired-state': {
        ThrottlingRateLimit: desiredState.rateLimit,
        ThrottlingBurstLimit: desiredState.burstLimit,
      },
      'PUT /v1/dispatcher/observed-state': {
        ThrottlingRateLimit: observedState.rateLimit,
        ThrottlingBurstLimit: observedState.burstLimit,
      },
    });
    expect(desiredState.rateLimit).toBeGreaterThan(200);
  });
});
