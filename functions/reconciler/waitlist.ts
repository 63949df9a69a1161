import { waitlistCapacityEmail } from '#core/emails.ts';
import { isPlaceable, placeablePlans } from '#core/placement.ts';
import { listPriceOf } from '#core/price-lock.ts';
import { config } from '#ports/config.ts';
import { listInventory } from '#store/capacity.ts';
import { outboxPut } from '#store/outbox.ts';
import { SIGNUP_HOME_REGION } from '#store/tenants.ts';
import { getUser } from '#store/users.ts';
import {
  listWaitingEntries,
  notifyWaitlistEntry,
  readWaitlistWatch,
  recordWaitlistCheck,
} from '#store/waitlist.ts';

/**
 * The longest the waitlist goes unread while nothing seems to change: the backstop for a join whose
 * count was lost (its request failed after the entry was written and was not repeated).
 */
export const WAITLIST_BACKSTOP_MS = 3_600_000;

/**
 * Tells each waiting tenant, once per join, that its Plan can now be placed in its Home Region.
 * The waitlist is read only when that can have changed: a join was counted since the last read, the
 * placeable Plans of a region anyone waits in differ from the last read's (capacity set, a Stack
 * torn down, a held place released), or an hour passed (the backstop). Otherwise a sweep reads one
 * item and the capacity of those regions. A read takes every waiting entry, page by page.
 * It also counts the Plans placeable in the Home Region (the sweep's gauge for the NoPlaceablePlan
 * alarm), from the same capacity read: a region is read once per sweep however it is used.
 */
export const notifyWaitlist = async (
  now: Date,
  pageSize?: number,
): Promise<{ notified: number; itemsRead: number; read: boolean; homePlaceable: number }> => {
  // Each region's capacity is read once per sweep (the promise is kept), and the reads run side by
  // side: the Home Region's (the gauge) together with the watch item, then every watched region's,
  // so the step takes about one read's time however many it makes.
  const inventories = new Map<string, ReturnType<typeof listInventory>>();
  const inventoryOf = (region: string) => {
    let inventory = inventories.get(region);
    if (!inventory) {
      inventory = listInventory(region);
      inventories.set(region, inventory);
    }
    return inventory;
  };
  const placeableIn = async (region: string) =>
    placeablePlans(await inventoryOf(region), region, now).join(',');
  const [watch, homeInventory] = await Promise.all([readWaitlistWatch(), inventoryOf(SIGNUP_HOME_REGION)]);
  const placeable: Record<string, string> = Object.fromEntries(
    await Promise.all(watch.regions.map(async (region) => [region, await placeableIn(region)] as const)),
  );
  const homePlaceable = placeablePlans(homeInventory, SIGNUP_HOME_REGION, now).length;
  const unchanged =
    watch.checkedJoins === watch.joins &&
    watch.checkedAt !== undefined &&
    now.getTime() - Date.parse(watch.checkedAt) < WAITLIST_BACKSTOP_MS &&
    watch.regions.every((region) => watch.placeable[region] === placeable[region]);
  if (unchanged) return { notified: 0, itemsRead: 1, read: false, homePlaceable };

  const { entries, itemsRead } = await listWaitingEntries(pageSize);
  let notified = 0;
  for (const entry of entries) {
    if (!isPlaceable(await inventoryOf(entry.region), entry.region, entry.plan, now)) continue;
    const user = await getUser(entry.joinedBy);
    if (!user?.email) continue;
    const key = `waitlist:${entry.tenantId}:${entry.plan}:${entry.joinedAt}`;
    const content = waitlistCapacityEmail({
      plan: entry.plan,
      homeRegion: entry.region,
      appUrl: config.tenantAppUrl(),
      monthlyPrice: listPriceOf(entry.plan, config.planPrices()).amount,
    });
    if (await notifyWaitlistEntry(entry, outboxPut(key, user.email, content, now), now)) notified++;
  }
  // Regions met for the first time (entries from before the watch item existed) join the watch.
  const seen = [...new Set(entries.map((entry) => entry.region))].filter((region) => !(region in placeable));
  for (const region of seen) placeable[region] = await placeableIn(region);
  await recordWaitlistCheck({ joins: watch.joins, placeable, regions: seen, now });
  return { notified, itemsRead: itemsRead + 1, read: true, homePlaceable };
};
