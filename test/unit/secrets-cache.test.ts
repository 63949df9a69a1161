import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { secretPlaceholderProblem } from '#core/secret-shape.ts';
import { type Clock, installClock, systemClock } from '#ports/clock.ts';
import { installSecretSource, SECRET_MAX_AGE_MINUTES, SecretNotSet, secretValue } from '#ports/secrets.ts';

const ARN = 'arn:aws:secretsmanager:eu-west-1:000000000000:secret:ProcessorApiKey-abc';
/** What CloudFormation generates for a secret with no value: 32 characters, punctuation included. */
const GENERATED = 'a8$Q!x2)Zk9^Lm3;Pq7&Wr4%Ts6*Vb1#';

let nowMs = Date.parse('2030-01-01T00:00:00.000Z');
const testClock: Clock = { now: () => new Date(nowMs) };
const advanceMinutes = (minutes: number) => {
  nowMs += minutes * 60_000;
};

describe('secrets are read again after a bounded age (on the Clock)', () => {
  let stored: string | undefined;
  let reads = 0;
  beforeEach(() => {
    installClock(testClock);
    reads = 0;
    installSecretSource(async (arn) => {
      expect(arn).toBe(ARN);
      reads++;
      return stored;
    });
    delete process.env.PROCESSOR_API_KEY;
    process.env.PROCESSOR_API_KEY_ARN = ARN;
  });
  afterEach(() => {
    installClock(systemClock);
    installSecretSource();
    delete process.env.PROCESSOR_API_KEY_ARN;
  });

  it('keeps a value for SECRET_MAX_AGE_MINUTES, then uses the value pasted meanwhile', async () => {
    expect(SECRET_MAX_AGE_MINUTES).toBe(5);
    stored = 'sk_test_first';
    expect(await secretValue('PROCESSOR_API_KEY')).toBe('sk_test_first');
    stored = 'sk_live_second';
    advanceMinutes(SECRET_MAX_AGE_MINUTES - 0.01);
    expect(await secretValue('PROCESSOR_API_KEY')).toBe('sk_test_first');
    expect(reads).toBe(1);
    advanceMinutes(0.01);
    expect(await secretValue('PROCESSOR_API_KEY')).toBe('sk_live_second');
    expect(reads).toBe(2);
  });

  it('a placeholder is refused with a clear error and counted, and the real value is used once its age is up', async () => {
    stored = GENERATED;
    // In Lambda the metric is written to the log stream as an EMF line.
    process.env.AWS_LAMBDA_FUNCTION_NAME = 'reconciler';
    const written = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const refused = await secretValue('PROCESSOR_API_KEY').catch((error: unknown) => error);
    const lines = written.mock.calls.map(([chunk]) => String(chunk)).join('');
    written.mockRestore();
    delete process.env.AWS_LAMBDA_FUNCTION_NAME;
    const emf = lines
      .split('\n')
      .filter((line) => line.includes('"_aws"'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(emf.map((document) => document.SecretsNotSet)).toEqual([1]);
    expect(lines).not.toContain(GENERATED);
    expect(refused).toBeInstanceOf(SecretNotSet);
    const message = (refused as Error).message;
    expect(message).toContain('PROCESSOR_API_KEY is still the placeholder generated at the first deploy');
    expect(message).toContain('PROCESSOR_API_KEY_ARN');
    expect(message).toContain('within 5 minutes');
    // Never the value itself.
    expect(message).not.toContain(GENERATED);

    stored = 'sk_live_real';
    advanceMinutes(SECRET_MAX_AGE_MINUTES);
    expect(await secretValue('PROCESSOR_API_KEY')).toBe('sk_live_real');
  });

  it('a failed read is not kept: the next use reads again', async () => {
    installSecretSource(async () => {
      reads++;
      if (reads === 1) throw new Error('throttled');
      return 'sk_test_ok';
    });
    await expect(secretValue('PROCESSOR_API_KEY')).rejects.toThrow('throttled');
    expect(await secretValue('PROCESSOR_API_KEY')).toBe('sk_test_ok');
    expect(reads).toBe(2);
  });
});

describe('a secret still the generated placeholder is recognised', () => {
  it('for each secret: the generated value, an empty one, and (where the shape is known) anything else', () => {
    for (const name of [
      'PROCESSOR_API_KEY',
      'PROCESSOR_WEBHOOK_SECRET',
      'EXPORTS_SIGNING_KEY',
      'CODE_HOST_CLIENT_SECRET',
    ] as const) {
      expect(secretPlaceholderProblem(name, GENERATED)).toContain('still the placeholder');
      expect(secretPlaceholderProblem(name, '  ')).toBe(`${name} is empty`);
    }
    expect(secretPlaceholderProblem('PROCESSOR_API_KEY', 'pk_live_abc')).toContain('does not look like');
    expect(secretPlaceholderProblem('PROCESSOR_WEBHOOK_SECRET', 'sk_live_abc')).toContain(
      'does not look like',
    );
    expect(secretPlaceholderProblem('EXPORTS_SIGNING_KEY', 'MIIEvQIBADANBgkq')).toContain(
      'does not look like',
    );
  });

  it('real values pass', () => {
    expect(secretPlaceholderProblem('PROCESSOR_API_KEY', 'sk_live_51Habc')).toBeUndefined();
    expect(secretPlaceholderProblem('PROCESSOR_API_KEY', 'rk_test_51Habc')).toBeUndefined();
    expect(secretPlaceholderProblem('PROCESSOR_WEBHOOK_SECRET', 'whsec_abc123')).toBeUndefined();
    expect(
      secretPlaceholderProblem(
        'EXPORTS_SIGNING_KEY',
        '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----',
      ),
    ).toBeUndefined();
    // GitHub's client secrets: 40 hex digits.
    expect(
      secretPlaceholderProblem('CODE_HOST_CLIENT_SECRET', 'a'.repeat(20) + '0123456789'.repeat(2)),
    ).toBeUndefined();
  });
});
