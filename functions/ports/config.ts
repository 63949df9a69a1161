/**
 * Deployment configuration, read from the environment (set by the CDK stack in the cloud and by
 * `npm start` locally). Read lazily, so a missing value fails the request that needs it, loudly.
 */
const required = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not configured`);
  return value;
};

export const config = {
  /** Stacks are addressed at `<slug>.<stackDomain>`. */
  stackDomain: () => required('STACK_DOMAIN'),
  /** Where the browser lands after sign-in. */
  tenantAppUrl: () => required('TENANT_APP_URL'),
  /** The only Origin accepted on unsafe requests authenticated by the session cookie. */
  tenantAppOrigin: () => new URL(required('TENANT_APP_URL')).origin,
  /** The API's public base URL; when unset, derived from the request's domain (https). */
  publicApiUrl: () => process.env.PUBLIC_API_URL,
  /** Days a tenant that left after a grace, a refund or a close keeps to export before teardown (default 7). */
  exportWindowDays: () => {
    const value = Number(process.env.EXPORT_WINDOW_DAYS ?? '7');
    if (!Number.isFinite(value) || value < 0)
      throw new Error('EXPORT_WINDOW_DAYS must be a number of days >= 0');
    return value;
  },
  codeHost: () => ({
    authorizeUrl: required('CODE_HOST_AUTHORIZE_URL'),
    tokenUrl: required('CODE_HOST_TOKEN_URL'),
    apiUrl: required('CODE_HOST_API_URL'),
    clientId: required('CODE_HOST_CLIENT_ID'),
  }),
};
