/**
 * Credentials (pure rules): which kinds each Provider accepts, which need consent, the name rule,
 * how a Runtime Profile resolves, which Credential a Thread gets, and what a deletion must do.
 */

export const CREDENTIAL_KINDS = ['oauth_token', 'auth_file', 'api_key', 'ambient'] as const;
export type CredentialKind = (typeof CREDENTIAL_KINDS)[number];

export const PROVIDERS = ['provider-a', 'provider-b', 'provider-c'] as const;
export type Provider = (typeof PROVIDERS)[number];

export const ACTIVITIES = ['intake', 'dispatch', 'guide'] as const;
/** `intake` is Intake Sessions and all Wayfinder work; `dispatch` ordinary Runs; `guide` Guide Sessions. */
export type Activity = (typeof ACTIVITIES)[number];
/** The activities a Project Credential Route is set for (the Guide has its own Stack-level selection). */
export const ROUTED_ACTIVITIES = ['intake', 'dispatch'] as const;
export type RoutedActivity = (typeof ROUTED_ACTIVITIES)[number];

export const EFFORTS = ['low', 'medium', 'high'] as const;
export type Effort = (typeof EFFORTS)[number];

/** The kinds each Provider accepts (closed set). */
export const ACCEPTED_KINDS: Record<Provider, readonly CredentialKind[]> = {
  'provider-a': ['oauth_token', 'api_key', 'ambient'],
  'provider-b': ['auth_file', 'api_key', 'ambient'],
  'provider-c': ['api_key'],
};

/** Kinds that spend the tenant's personal subscription with the provider need its consent. */
export const needsConsent = (kind: CredentialKind): boolean => kind !== 'api_key';

/**
 * THE consent text an administrator agrees to for a kind that needs consent, and its version: a
 * provisioning's `consent.textVersion` must name this version (the text the console showed).
 * Changing the text means a new version.
 */
export const CONSENT_TEXT_VERSION = '2026-11';
export const CONSENT_TEXT =
  'I am an administrator of this account. I agree that this Stack uses my own subscription with the provider through this Credential: its usage counts against that subscription, under the provider’s terms, until the Credential is archived or deleted.';

/** `ambient` uses the host's own runtime login: only a Local Stack using the host Executor has one. */
export const needsLocalHostExecutor = (kind: CredentialKind): boolean => kind === 'ambient';

/** `api_key` usage is metered and charged by the provider on top of the flat hosted fee. */
export const isMetered = (kind: CredentialKind): boolean => kind === 'api_key';

/** A Credential name: 1 to 63 lowercase letters, digits and hyphens, starting with a letter or digit. */
export const CREDENTIAL_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;
export const CREDENTIAL_NAME_RULE =
  '1 to 63 lowercase letters, digits and hyphens, starting with a letter or a digit';

/**
 * Names a NEW Credential may not take: `catalog` is the Provider catalog under /v1/credentials. A
 * Credential that had such a name before keeps working (lookups check only the shape).
 */
export const RESERVED_CREDENTIAL_NAMES: readonly string[] = ['catalog'];

/**
 * The largest auth file accepted (bytes of its JSON text). The auth files a runtime writes are a
 * few KB at most (OAuth tokens and a refresh token, JWTs included; a cloud service-account JSON is
 * about 2.3 KB): 16 KB leaves them room to grow several times over.
 */
export const AUTH_FILE_MAX_BYTES = 16 * 1024;

/**
 * The longest `material` (characters) of any kind: a token or key is under 1 KB, and an auth file's
 * text, at most AUTH_FILE_MAX_BYTES bytes, has at most that many characters (each takes at least
 * a byte). Longer is refused by the request's schema, before anything is read or written.
 */
export const CREDENTIAL_MATERIAL_MAX_CHARS = AUTH_FILE_MAX_BYTES;

/**
 * The largest body of a Credential's provisioning (POST /v1/credentials/{name}, and the
 * specification's POST /credentials/{name}), in bytes: the longest material JSON-escaped (a
 * quote, a backslash or a line break takes two characters; an auth file has no other control
 * character), plus 4 KB for the rest, whose fields are under 1 KB even at their own limits.
 * Every other JSON body has the general limit (functions/http/handler.ts, MAX_BODY_BYTES).
 */
export const CREDENTIAL_BODY_MAX_BYTES = 2 * CREDENTIAL_MATERIAL_MAX_CHARS + 4 * 1024;

export type ProvisionRefusal =
  | { code: 'kind_not_accepted'; accepted: readonly CredentialKind[] }
  | { code: 'consent_required' }
  | { code: 'consent_not_expected' }
  | { code: 'consent_version_unknown'; given: string; current: string }
  | { code: 'ambient_not_available' }
  | { code: 'material_required' }
  | { code: 'material_not_expected' }
  | { code: 'provider_change' };

/**
 * Whether a provisioning (or rotation) may go ahead: the kind is one the Provider accepts, consent
 * is given exactly when the kind needs it and names the current consent text, `ambient` only on a
 * Local Stack using the host Executor and with no material, every other kind with material, and a
 * rotation keeps the Provider. Answers the first refusal, or undefined.
 */
export const provisionRefusal = (params: {
  provider: Provider;
  kind: CredentialKind;
  consentGiven: boolean;
  /** The consent text version the request names (with `consentGiven`); checked when given. */
  consentTextVersion?: string | undefined;
  materialGiven: boolean;
  localHostExecutor: boolean;
  /** The Provider of the existing Credential of that name (a rotation), if any. */
  existingProvider?: Provider | undefined;
}): ProvisionRefusal | undefined => {
  if (params.existingProvider !== undefined && params.existingProvider !== params.provider)
    return { code: 'provider_change' };
  const accepted = ACCEPTED_KINDS[params.provider];
  if (!accepted.includes(params.kind)) return { code: 'kind_not_accepted', accepted };
  if (needsConsent(params.kind) && !params.consentGiven) return { code: 'consent_required' };
  if (!needsConsent(params.kind) && params.consentGiven) return { code: 'consent_not_expected' };
  if (params.consentTextVersion !== undefined && params.consentTextVersion !== CONSENT_TEXT_VERSION)
    return {
      code: 'consent_version_unknown',
      given: params.consentTextVersion,
      current: CONSENT_TEXT_VERSION,
    };
  if (needsLocalHostExecutor(params.kind)) {
    if (!params.localHostExecutor) return { code: 'ambient_not_available' };
    if (params.materialGiven) return { code: 'material_not_expected' };
    return undefined;
  }
  if (!params.materialGiven) return { code: 'material_required' };
  return undefined;
};

/** Is an auth file well formed? A JSON object with at least one field, within the size limit. */
export const authFileProblem = (text: string): string | undefined => {
  if (Buffer.byteLength(text, 'utf8') > AUTH_FILE_MAX_BYTES)
    return `the auth file is larger than ${AUTH_FILE_MAX_BYTES / 1024} KB`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return 'the auth file is not JSON';
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return 'the auth file must be a JSON object';
  if (Object.keys(parsed).length === 0) return 'the auth file is an empty object';
  return undefined;
};

export interface ProfileEntry {
  model?: string | undefined;
  effort?: Effort | undefined;
}
export type RuntimeProfile = Partial<Record<Activity, ProfileEntry>>;

/**
 * The model and effort a Thread (or session) of `activity` runs with: an explicit value for this
 * one Run or session wins; else the Credential's Runtime Profile entry; else (blank) the
 * Provider's declared default. Each of model and effort resolves on its own.
 */
export const resolveProfile = (params: {
  activity: Activity;
  explicit: ProfileEntry;
  profile: RuntimeProfile;
  providerDefault: { model: string; effort: Effort };
}): { model: string; effort: Effort } => {
  const entry = params.profile[params.activity] ?? {};
  const pick = <T>(explicit: T | undefined, own: T | undefined, fallback: T): T =>
    explicit !== undefined && explicit !== '' ? explicit : own !== undefined && own !== '' ? own : fallback;
  return {
    model: pick(params.explicit.model, entry.model, params.providerDefault.model),
    effort: pick(params.explicit.effort, entry.effort, params.providerDefault.effort),
  };
};

/** Why a Credential cannot be used now, or undefined when it can. */
export type Unusable = 'archived' | 'validation_failed' | 'validation_pending' | 'subscription_policy';

/**
 * The subscription policy: while the tenant's billing is suspended or the tenant is leaving,
 * its Credentials are disabled (no Thread or Guide Session gets one); active and past-due
 * tenants keep theirs (past-due still runs while the grace lasts).
 */
export const disabledBySubscription = (billingState: string): boolean =>
  billingState === 'suspended' || billingState === 'decommissioning';

/**
 * A move of the billing state after which the subscription policy disables the tenant's Credentials
 * where it did not before (active or past-due to suspended or decommissioning): at that moment the
 * Guide selections are cleared, in the transition's own write, not at the next Guide request.
 */
export const policyStartsDisabling = (from: string, to: string): boolean =>
  !disabledBySubscription(from) && disabledBySubscription(to);

export const unusableReason = (credential: {
  archived: boolean;
  validation: 'pending' | 'valid' | 'invalid';
  billingState: string;
}): Unusable | undefined => {
  if (credential.archived) return 'archived';
  if (disabledBySubscription(credential.billingState)) return 'subscription_policy';
  if (credential.validation === 'invalid') return 'validation_failed';
  if (credential.validation === 'pending') return 'validation_pending';
  return undefined;
};

export interface CredentialRoute {
  primary: string;
  fallback?: string | undefined;
}

/**
 * The Credential a new Thread gets: the route's Primary while usable, else its Fallback while
 * usable (bringing its own profile), else none with the reasons.
 */
export const pickRouted = (
  route: CredentialRoute,
  unusable: (name: string) => Unusable | 'missing' | undefined,
):
  | { name: string; position: 'primary' | 'fallback' }
  | { name: undefined; reasons: { position: 'primary' | 'fallback'; name: string; reason: string }[] } => {
  const primaryReason = unusable(route.primary);
  if (primaryReason === undefined) return { name: route.primary, position: 'primary' };
  const reasons: { position: 'primary' | 'fallback'; name: string; reason: string }[] = [
    { position: 'primary', name: route.primary, reason: primaryReason },
  ];
  if (route.fallback !== undefined) {
    const fallbackReason = unusable(route.fallback);
    if (fallbackReason === undefined) return { name: route.fallback, position: 'fallback' };
    reasons.push({ position: 'fallback', name: route.fallback, reason: fallbackReason });
  }
  return { name: undefined, reasons };
};

export interface RouteUse {
  projectId: string;
  activity: RoutedActivity;
  position: 'primary' | 'fallback';
}

/** Every Project, activity and route position that names `name` (what a blocked deletion lists). */
export const routeUses = (
  name: string,
  projects: { projectId: string; routes: Partial<Record<RoutedActivity, CredentialRoute>> }[],
): RouteUse[] => {
  const uses: RouteUse[] = [];
  for (const project of projects)
    for (const activity of ROUTED_ACTIVITIES) {
      const route = project.routes[activity];
      if (route?.primary === name) uses.push({ projectId: project.projectId, activity, position: 'primary' });
      if (route?.fallback === name)
        uses.push({ projectId: project.projectId, activity, position: 'fallback' });
    }
  return uses;
};

/**
 * What a deletion does: blocked while any current route names the Credential (every use listed);
 * otherwise a confirmation first, reporting how many historical Threads become non-resumable (even
 * when none does: the spec asks for a separate confirmation whenever no route names it), unless
 * this request carries a valid confirmation, which deletes.
 */
export const deletionDecision = (params: {
  uses: RouteUse[];
  threadCount: number;
  confirmed: boolean;
}):
  | { kind: 'blocked'; uses: RouteUse[] }
  | { kind: 'confirmation_required'; threadCount: number }
  | { kind: 'delete' } => {
  if (params.uses.length > 0) return { kind: 'blocked', uses: params.uses };
  if (!params.confirmed) return { kind: 'confirmation_required', threadCount: params.threadCount };
  return { kind: 'delete' };
};

/** A deletion confirmation is valid this long after it was issued. */
export const CONFIRMATION_MINUTES = 15;

/**
 * The keys of the encryption context a Credential's material is sealed with (and only opens with):
 * whose secret it is. The CDK grants KMS on the Credentials key only with exactly these keys
 * present (kms:EncryptionContext conditions, lib/infra/constructs/credentials-key.ts).
 */
export const MATERIAL_CONTEXT_KEYS = ['tenantId', 'stackId', 'credential'] as const;

/** The encryption context a Credential's material is sealed with (and only opens with). */
export const materialContext = (
  tenantId: string,
  stackId: string,
  name: string,
): Record<(typeof MATERIAL_CONTEXT_KEYS)[number], string> => ({ tenantId, stackId, credential: name });
