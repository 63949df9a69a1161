import {
  ACCEPTED_KINDS,
  ACTIVITIES,
  CONSENT_TEXT,
  CONSENT_TEXT_VERSION,
  EFFORTS,
  isMetered,
  needsConsent,
  needsLocalHostExecutor,
  PROVIDERS,
} from '#core/credentials.ts';
import { PROVIDER_CATALOG } from '#ports/config.ts';

/**
 * THE Provider catalog as the API accepts it (any member): the consent text and its version, each
 * Provider with its name, defaults and accepted kinds (in the order the catalog lists them, each
 * with whether it needs consent, only works on a Local Stack using the host Executor, and is
 * metered), the activities of a Runtime Profile and the efforts it accepts. Reads nothing stored.
 */
export const credentialCatalog = () => ({
  consent: { textVersion: CONSENT_TEXT_VERSION, text: CONSENT_TEXT },
  providers: PROVIDERS.map((provider) => ({
    provider,
    name: PROVIDER_CATALOG[provider].name,
    defaults: { ...PROVIDER_CATALOG[provider].defaults },
    kinds: ACCEPTED_KINDS[provider].map((kind) => ({
      kind,
      needsConsent: needsConsent(kind),
      localOnly: needsLocalHostExecutor(kind),
      metered: isMetered(kind),
    })),
  })),
  activities: [...ACTIVITIES],
  efforts: [...EFFORTS],
});
