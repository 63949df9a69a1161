import { waitlistCapacityEmail } from '#core/emails.ts';
import { isPlaceable } from '#core/placement.ts';
import { listPriceOf } from '#core/price-lock.ts';
import { config } from '#ports/config.ts';
import { listInventory } from '#store/capacity.ts';
import { outboxPut } from '#store/outbox.ts';
import { getUser } from '#store/users.ts';
import { listWaitingEntries, notifyWaitlistEntry } from '#store/waitlist.ts';

/**
 * Tells each waiting tenant, once per join, that its Plan can now be placed in its Home Region.
 * Reads every waiting entry (page by page), and nothing beyond one empty query when nobody waits.
 */
export const notifyWaitlist = async (
  now: Date,
  pageSize?: number,
): Promise<{ notified: number; itemsRead: number }> => {
  const { entries, itemsRead } = await listWaitingEntries(pageSize);
  let notified = 0;
  const inventories = new Map<string, Awaited<ReturnType<typeof listInventory>>>();
  for (const entry of entries) {
    let inventory = inventories.get(entry.region);
    if (!inventory) {
      inventory = await listInventory(entry.region);
      inventories.set(entry.region, inventory);
    }
    if (!isPlaceable(inventory, entry.region, entry.plan, now)) continue;
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
  return { notified, itemsRead };
};
