import { ROUTED_ACTIVITIES } from '#core/credentials.ts';
import { refuse } from '#core/refusals/index.ts';
import { getProject, setCredentialRoutes } from '#store/projects.ts';
import type { Tenant } from '#store/tenants.ts';
import { requireCredential, requireStack } from '../lookups/index.ts';

type Routes = Partial<
  Record<(typeof ROUTED_ACTIVITIES)[number], { primary: string; fallback?: string | undefined }>
>;

/**
 * THE Project Credential Routes use case: for intake and for dispatch, a Primary and an optional
 * Fallback, each a Credential of the same Stack that is not archived; an activity left out has
 * no route. Replaces the Project's routes as a whole.
 */
export const setProjectCredentialRoutes = async (params: {
  tenant: Tenant;
  stackId: string;
  projectId: string;
  routes: Routes;
}) => {
  const { tenant } = params;
  const stack = await requireStack(tenant.tenantId, params.stackId);
  const project = await getProject(tenant.tenantId, stack.stackId, params.projectId);
  if (!project) throw refuse('project_not_found', { stackId: stack.stackId, projectId: params.projectId });
  for (const activity of ROUTED_ACTIVITIES) {
    const route = params.routes[activity];
    if (!route) continue;
    if (route.fallback !== undefined && route.fallback === route.primary)
      throw refuse('invalid_route', { activity }, { field: `${activity}.fallback` });
    for (const [position, name] of [
      ['primary', route.primary],
      ['fallback', route.fallback],
    ] as const) {
      if (name === undefined) continue;
      const credential = await requireCredential(tenant.tenantId, stack.stackId, name);
      if (credential.archivedAt !== undefined)
        throw refuse(
          'credential_archived',
          { name, activity, position },
          { field: `${activity}.${position}` },
        );
    }
  }
  const routes = Object.fromEntries(
    ROUTED_ACTIVITIES.flatMap((activity) => {
      const route = params.routes[activity];
      return route
        ? [[activity, { primary: route.primary, ...(route.fallback ? { fallback: route.fallback } : {}) }]]
        : [];
    }),
  );
  if (!(await setCredentialRoutes(tenant.tenantId, stack.stackId, project.projectId, routes)))
    throw refuse('project_not_found', { stackId: stack.stackId, projectId: project.projectId });
  return { projectId: project.projectId, stackId: stack.stackId, credentialRoutes: routes };
};
