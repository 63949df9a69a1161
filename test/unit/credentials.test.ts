import { describe, expect, it } from 'vitest';
import {
  ACCEPTED_KINDS,
  authFileProblem,
  CREDENTIAL_KINDS,
  CREDENTIAL_NAME,
  deletionDecision,
  PROVIDERS,
  pickRouted,
  policyStartsDisabling,
  provisionRefusal,
  resolveProfile,
  routeUses,
  unusableReason,
} from '#core/credentials.ts';

/** The spec's table, written out independently: Provider -> accepted kinds; kinds needing consent. */
const TABLE: Record<string, string[]> = {
  'provider-a': ['oauth_token', 'api_key', 'ambient'],
  'provider-b': ['auth_file', 'api_key', 'ambient'],
  'provider-c': ['api_key'],
};
const CONSENT = new Set(['oauth_token', 'auth_file', 'ambient']);

describe('the kind x Provider x consent table: every cell', () => {
  for (const provider of PROVIDERS)
    for (const kind of CREDENTIAL_KINDS)
      for (const consentGiven of [true, false]) {
        const accepted = TABLE[provider]?.includes(kind) ?? false;
        const needs = CONSENT.has(kind);
        const expected = !accepted
          ? 'kind_not_accepted'
          : needs && !consentGiven
            ? 'consent_required'
            : !needs && consentGiven
              ? 'consent_not_expected'
              : undefined;
        it(`${provider} ${kind} ${consentGiven ? 'with' : 'without'} consent: ${expected ?? 'accepted'}`, () => {
          const refusal = provisionRefusal({
            provider,
            kind,
            consentGiven,
            materialGiven: kind !== 'ambient',
            localHostExecutor: true,
          });
          expect(refusal?.code).toBe(expected);
          if (refusal?.code === 'kind_not_accepted') expect(refusal.accepted).toEqual(TABLE[provider]);
        });
      }

  it('lists what each Provider accepts', () => {
    expect(ACCEPTED_KINDS).toEqual(TABLE);
  });

  it('ambient only on a Local Stack using the host Executor, and with no material', () => {
    const base = { provider: 'provider-a', kind: 'ambient', consentGiven: true } as const;
    expect(provisionRefusal({ ...base, materialGiven: false, localHostExecutor: false })?.code).toBe(
      'ambient_not_available',
    );
    expect(provisionRefusal({ ...base, materialGiven: true, localHostExecutor: true })?.code).toBe(
      'material_not_expected',
    );
    expect(provisionRefusal({ ...base, materialGiven: false, localHostExecutor: true })).toBeUndefined();
  });

  it('other kinds need material; a rotation keeps the Provider', () => {
    expect(
      provisionRefusal({
        provider: 'provider-c',
        kind: 'api_key',
        consentGiven: false,
        materialGiven: false,
        localHostExecutor: false,
      })?.code,
    ).toBe('material_required');
    expect(
      provisionRefusal({
        provider: 'provider-b',
        kind: 'api_key',
        consentGiven: false,
        materialGiven: true,
        localHostExecutor: false,
        existingProvider: 'provider-a',
      })?.code,
    ).toBe('provider_change');
    expect(
      provisionRefusal({
        provider: 'provider-a',
        kind: 'api_key',
        consentGiven: false,
        materialGiven: true,
        localHostExecutor: false,
        existingProvider: 'provider-a',
      }),
    ).toBeUndefined();
  });
});

describe('names and auth files', () => {
  it('a name is 1 to 63 lowercase letters, digits and hyphens, starting with a letter or digit', () => {
    for (const good of ['a', 'work-key', '9lives', 'x'.repeat(63)])
      expect(CREDENTIAL_NAME.test(good)).toBe(true);
    for (const bad of ['', '-a', 'Key', 'a_b', 'a b', 'x'.repeat(64), 'a/b'])
      expect(CREDENTIAL_NAME.test(bad)).toBe(false);
  });
  it('an auth file is a non-empty JSON object of at most 16 KB', () => {
    expect(authFileProblem('{"token":"t"}')).toBeUndefined();
    expect(authFileProblem('not json')).toContain('not JSON');
    expect(authFileProblem('[1]')).toContain('JSON object');
    expect(authFileProblem('{}')).toContain('empty');
    expect(authFileProblem(JSON.stringify({ a: 'x'.repeat(17 * 1024) }))).toContain('larger');
  });
});

describe('Runtime Profile resolution', () => {
  const providerDefault = { model: 'default-model', effort: 'medium' } as const;
  it('an explicit value for the Run beats the Credential, which beats the Provider default, per field', () => {
    const profile = { dispatch: { model: 'cred-model', effort: 'high' } } as const;
    expect(resolveProfile({ activity: 'dispatch', explicit: {}, profile, providerDefault })).toEqual({
      model: 'cred-model',
      effort: 'high',
    });
    expect(
      resolveProfile({ activity: 'dispatch', explicit: { model: 'run-model' }, profile, providerDefault }),
    ).toEqual({
      model: 'run-model',
      effort: 'high',
    });
    expect(
      resolveProfile({ activity: 'dispatch', explicit: { effort: 'low' }, profile, providerDefault }),
    ).toEqual({
      model: 'cred-model',
      effort: 'low',
    });
  });
  it('a blank entry, or another activity, falls back to the Provider default', () => {
    const profile = { intake: { model: 'intake-model' } } as const;
    expect(resolveProfile({ activity: 'guide', explicit: {}, profile, providerDefault })).toEqual(
      providerDefault,
    );
    expect(resolveProfile({ activity: 'intake', explicit: { model: '' }, profile, providerDefault })).toEqual(
      {
        model: 'intake-model',
        effort: 'medium',
      },
    );
  });
});

describe('routing a Thread', () => {
  it('takes the Primary while usable, else the Fallback, else says why for each', () => {
    const route = { primary: 'main', fallback: 'spare' };
    expect(pickRouted(route, () => undefined)).toEqual({ name: 'main', position: 'primary' });
    expect(pickRouted(route, (n) => (n === 'main' ? 'validation_failed' : undefined))).toEqual({
      name: 'spare',
      position: 'fallback',
    });
    expect(pickRouted(route, () => 'archived')).toEqual({
      name: undefined,
      reasons: [
        { position: 'primary', name: 'main', reason: 'archived' },
        { position: 'fallback', name: 'spare', reason: 'archived' },
      ],
    });
  });
  it('a Credential is unusable while archived, pending or failed, and while the tenant is suspended or leaving', () => {
    const ok = { archived: false, validation: 'valid', billingState: 'active' } as const;
    expect(unusableReason(ok)).toBeUndefined();
    expect(unusableReason({ ...ok, billingState: 'past-due' })).toBeUndefined();
    expect(unusableReason({ ...ok, billingState: 'suspended' })).toBe('subscription_policy');
    expect(unusableReason({ ...ok, billingState: 'decommissioning' })).toBe('subscription_policy');
    expect(unusableReason({ ...ok, archived: true })).toBe('archived');
    expect(unusableReason({ ...ok, validation: 'invalid' })).toBe('validation_failed');
    expect(unusableReason({ ...ok, validation: 'pending' })).toBe('validation_pending');
  });
});

describe('the subscription policy starts disabling Credentials (the Guide selection is cleared then)', () => {
  it('when the tenant moves from active or past-due to suspended or decommissioning, and only then', () => {
    const states = ['provisioning', 'active', 'past-due', 'suspended', 'decommissioning'];
    const starts = states.flatMap((from) =>
      states.filter((to) => policyStartsDisabling(from, to)).map((to) => `${from} -> ${to}`),
    );
    expect(starts).toEqual([
      'provisioning -> suspended',
      'provisioning -> decommissioning',
      'active -> suspended',
      'active -> decommissioning',
      'past-due -> suspended',
      'past-due -> decommissioning',
    ]);
  });
});

describe('the deletion decision', () => {
  const projects = [
    { projectId: 'p1', routes: { intake: { primary: 'k' }, dispatch: { primary: 'other', fallback: 'k' } } },
    { projectId: 'p2', routes: { dispatch: { primary: 'k' } } },
    { projectId: 'p3', routes: {} },
  ];
  it('lists every Project, activity and position naming the Credential', () => {
    expect(routeUses('k', projects)).toEqual([
      { projectId: 'p1', activity: 'intake', position: 'primary' },
      { projectId: 'p1', activity: 'dispatch', position: 'fallback' },
      { projectId: 'p2', activity: 'dispatch', position: 'primary' },
    ]);
    expect(routeUses('nobody', projects)).toEqual([]);
  });
  it('blocked while a route names it, whatever the confirmation', () => {
    const uses = routeUses('k', projects);
    expect(deletionDecision({ uses, threadCount: 0, confirmed: true })).toEqual({ kind: 'blocked', uses });
  });
  it('asks for confirmation with the Thread count, then deletes', () => {
    expect(deletionDecision({ uses: [], threadCount: 3, confirmed: false })).toEqual({
      kind: 'confirmation_required',
      threadCount: 3,
    });
    expect(deletionDecision({ uses: [], threadCount: 3, confirmed: true })).toEqual({ kind: 'delete' });
  });
  it('always asks for confirmation once no route names it, even when no Thread becomes non-resumable', () => {
    expect(deletionDecision({ uses: [], threadCount: 0, confirmed: false })).toEqual({
      kind: 'confirmation_required',
      threadCount: 0,
    });
    expect(deletionDecision({ uses: [], threadCount: 0, confirmed: true })).toEqual({ kind: 'delete' });
  });
});
