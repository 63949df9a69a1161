import { describe, expect, it } from 'vitest';
import { dispatcherRouteThrottles } from '#core/dispatcher.ts';
import { DEFAULT_FLEET_STACKS } from '../../lib/infra/constructs/api.ts';
import { SWEEP_MAX_EVENT_AGE_SECONDS } from '../../lib/infra/constructs/reconciler.ts';
import { synthesizedStack } from '../support/synthesized-stack.ts';

// What lets the stack carry a large fleet (issue 23): the Dispatcher routes throttled from the
// fleet's size, and a sweep invocation that is never retried for hours.

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

describe("the sweep's asynchronous invocations", () => {
  it('are dropped after a minute and never retried (a nudge is worth something only now)', () => {
    expect(SWEEP_MAX_EVENT_AGE_SECONDS).toBe(60);
    const configs = Object.values(template.findResources('AWS::Lambda::EventInvokeConfig'));
    expect(configs).toHaveLength(1);
    expect(configs[0]?.Properties).toMatchObject({
      MaximumEventAgeInSeconds: 60,
      MaximumRetryAttempts: 0,
      Qualifier: '$LATEST',
    });
    expect(JSON.stringify(configs[0]?.Properties.FunctionName)).toContain('ReconcilerSweep');
  });

  it("the schedule's invocation neither: one a minute, no retry, a minute at most", () => {
    const rules = Object.values(template.findResources('AWS::Events::Rule')).filter(
      (rule) => rule.Properties.ScheduleExpression === 'rate(1 minute)',
    );
    expect(rules).toHaveLength(1);
    expect(rules[0]?.Properties.Targets[0].RetryPolicy).toEqual({
      MaximumEventAgeInSeconds: 60,
      MaximumRetryAttempts: 0,
    });
  });
});
