/**
 * Whether a secret's value can be the real thing, or is still the placeholder the stack's
 * Secrets Manager secret was created with. CloudFormation generates that placeholder at the first
 * deploy (32 characters of its default alphabet: letters, digits and punctuation) and the operator
 * replaces it (docs/runbook.md, "Secrets"). Three secrets have a shape the processor or the key
 * format fixes, so anything else is caught; the code host's client secret has none we can rely on
 * (GitHub's are 40 hex digits), so there only the generated placeholder's own shape is caught.
 */
export type SecretName =
  | 'CODE_HOST_CLIENT_SECRET'
  | 'PROCESSOR_API_KEY'
  | 'PROCESSOR_WEBHOOK_SECRET'
  | 'EXPORTS_SIGNING_KEY';

/** CloudFormation's generated value: 32 printable characters, no space, at least one punctuation mark. */
const GENERATED = /^(?=.*[!-/:-@[-`{-~])[!-~]{32}$/;

const SHAPES: Record<SecretName, { real: RegExp; expected: string } | undefined> = {
  PROCESSOR_API_KEY: {
    real: /^(sk|rk)_(test|live)_[A-Za-z0-9_]+$/,
    expected: 'a secret key (sk_live_..., sk_test_... or rk_...)',
  },
  PROCESSOR_WEBHOOK_SECRET: {
    real: /^whsec_[A-Za-z0-9_]+$/,
    expected: 'a webhook signing secret (whsec_...)',
  },
  EXPORTS_SIGNING_KEY: { real: /-----BEGIN (RSA )?PRIVATE KEY-----/, expected: 'an RSA private key in PEM' },
  CODE_HOST_CLIENT_SECRET: undefined,
};

/** Undefined when `value` can be the real secret; else what is wrong, in words that never quote it. */
export const secretPlaceholderProblem = (name: SecretName, value: string): string | undefined => {
  const trimmed = value.trim();
  const shape = SHAPES[name];
  if (trimmed === '') return `${name} is empty`;
  if (GENERATED.test(trimmed))
    return `${name} is still the placeholder generated at the first deploy${shape ? ` (set ${shape.expected})` : ''}`;
  if (shape && !shape.real.test(trimmed))
    return `${name} does not look like ${shape.expected}: is it still the placeholder generated at the first deploy?`;
  return undefined;
};
