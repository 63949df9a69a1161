import { stackName } from '#core/slug.ts';
import { httpHandler } from '#http/handler.ts';
import { config } from '#ports/config.ts';
import { requireTenant } from '../lookups/index.ts';
import { planChangeControls } from '../plan-changes/gates.ts';
import { meView } from '../tenants/me.ts';

/** GET /v1/me: who is signed in, in which tenant and role, and the tenant's slug and state. */
export const handler = httpHandler({ auth: 'session' }, async ({ principal }) => {
  const { user, tenant, waitlist, accounts } = await meView(
    principal.userId,
    principal.tenantId,
    requireTenant(principal.tenantId),
  );
  return {
    status: 200,
    body: {
      user: { id: user.userId, login: user.login, email: user.email ?? null },
      tenantId: tenant.tenantId,
      role: principal.role,
      slug: tenant.slug,
      stackName: tenant.slug === null ? null : stackName(tenant.slug, config.stackDomain()),
      homeRegion: tenant.homeRegion,
      billingState: tenant.billingState,
      // A close asked for and not yet carried out by the sweep (the console shows it as closing).
      closeRequestedAt: tenant.closeRequestedAt ?? null,
      // The Plans the tenant waits for (or was told of): a reload still shows the join.
      waitlist: waitlist.map((entry) => ({
        plan: entry.plan,
        homeRegion: entry.region,
        joinedAt: entry.joinedAt,
        notified: entry.notifiedAt !== undefined,
      })),
      // The Plan Change controls show only when all five release gates are ready.
      planChangeControls: planChangeControls(),
      // A returning customer: when a new account can be started, and the former accounts.
      ...accounts,
    },
  };
});
