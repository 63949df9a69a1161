import { CREDENTIAL_NAME } from '#core/credentials.ts';
import { refuse } from '#core/refusals/index.ts';
import { getCredential, type StoredCredential } from '#store/credentials.ts';
import { getExport, type StoredExport } from '#store/exports.ts';
import { getPlanChange, type PlanChange } from '#store/plan-changes.ts';
import { getStack, type StoredStack } from '#store/stacks.ts';
import { getTenant, type Tenant, tenantIdOfSlug } from '#store/tenants.ts';

/**
 * THE lookups a request's ids go through (issue 38, item 3): each reads one item of the caller's
 * tenant and refuses with its `*_not_found` when there is none, so a thing of another tenant (or
 * of another Stack) is simply not found, and every use case and handler says it the same way.
 */

/** The caller's tenant (from the authorizer's tenant id, never from the request). */
export const requireTenant = async (tenantId: string): Promise<Tenant> => {
  const tenant = await getTenant(tenantId);
  if (!tenant) throw refuse('tenant_not_found', {});
  return tenant;
};

/**
 * The tenant an operator names by its slug (money back, Plan Change operations): written as the
 * tenant typed it or not (spaces around it, capitals), as the slug rules store it lowercase.
 */
export const requireTenantBySlug = async (slug: string): Promise<Tenant> => {
  const tenantId = await tenantIdOfSlug(slug.trim().toLowerCase());
  const tenant = tenantId ? await getTenant(tenantId) : undefined;
  if (!tenant) throw refuse('tenant_not_found', { slug }, { field: 'slug' });
  return tenant;
};

/** One of the tenant's Stacks; a Stack of another tenant is simply not found. */
export const requireStack = async (
  tenantId: string,
  stackId: string,
  options: { consistent?: boolean } = {},
): Promise<StoredStack> => {
  const stack = await getStack(tenantId, stackId, options);
  if (!stack) throw refuse('stack_not_found', { stackId });
  return stack;
};

/**
 * One Credential of a Stack, by name (the tenant's routes and the Stack's own Dispatcher): a name
 * of another Stack, of no Stack or of no valid shape is simply not found, so material never
 * reaches another Stack. `listedBy` says where the caller finds the names.
 */
export const requireCredential = async (
  tenantId: string,
  stackId: string,
  name: string,
  listedBy = `GET /v1/credentials?stackId=${stackId} lists them`,
): Promise<StoredCredential> => {
  const found = CREDENTIAL_NAME.test(name) ? await getCredential(tenantId, stackId, name) : undefined;
  if (!found) throw refuse('credential_not_found', { name, listedBy });
  return found;
};

/** One export of one of the tenant's Stacks; another tenant's, or another Stack's, is simply not found. */
export const requireExport = async (
  tenantId: string,
  stackId: string,
  exportId: string,
): Promise<{ stack: StoredStack; record: StoredExport }> => {
  const stack = await requireStack(tenantId, stackId);
  const record = await getExport(tenantId, stackId, exportId);
  if (!record) throw refuse('export_not_found', { stackId, exportId });
  return { stack, record };
};

/** One of the tenant's Plan Changes; an id of no valid shape is simply not found. */
export const requirePlanChange = async (tenantId: string, changeId: string): Promise<PlanChange> => {
  const change = /^pc_[a-z0-9]{1,40}$/.test(changeId) ? await getPlanChange(tenantId, changeId) : undefined;
  if (!change) throw refuse('plan_change_not_found', { changeId });
  return change;
};
