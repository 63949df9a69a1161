/**
 * How long a tenant whose reconciliation keeps failing waits before the sweep tries it again:
 * 30 s after the first failure, doubling with each failure after that, never more than an hour.
 * A successful reconciliation clears the count; a new processor event makes the tenant due at once.
 */
export const RECONCILE_BACKOFF_BASE_MS = 30_000;
export const RECONCILE_BACKOFF_CAP_MS = 3_600_000;

/** The delay after the `failures`-th consecutive failure (1 for the first). */
export const reconcileBackoffMs = (failures: number): number => {
  if (!Number.isFinite(failures) || failures < 1) return RECONCILE_BACKOFF_BASE_MS;
  // 2^7 * 30 s is already past the cap: no need to raise 2 to large powers.
  const exponent = Math.min(Math.floor(failures) - 1, 8);
  return Math.min(RECONCILE_BACKOFF_BASE_MS * 2 ** exponent, RECONCILE_BACKOFF_CAP_MS);
};

/** When the tenant is due again after its `failures`-th consecutive failure at `now`. */
export const reconcileRetryAt = (failures: number, now: Date): Date =>
  new Date(now.getTime() + reconcileBackoffMs(failures));
