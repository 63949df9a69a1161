import { randomBytes } from 'node:crypto';
import { refuse } from '#core/refusals/index.ts';
import { listProjects, type Project, registerProject, removeProject } from '#store/projects.ts';
import { requireStack } from '../lookups/index.ts';

/** What a Stack that is not running refuses here. */
const REGISTER = 'register a Project';

const projectView = (project: Project) => ({
  projectId: project.projectId,
  name: project.name,
  repository: project.repository,
  registeredAt: project.registeredAt,
  credentialRoutes: project.credentialRoutes,
});

/**
 * THE Project registration use case: the Watched-Projects cap (`stacks.watched_projects_cap`) is
 * enforced here, on the control plane only, never rendered to the Stack. Full: 409
 * `watched_projects_cap_reached` with the cap.
 */
export const addProject = async (params: {
  tenantId: string;
  stackId: string;
  name: string;
  repository: string;
  now: Date;
}) => {
  const stack = await requireStack(params.tenantId, params.stackId);
  if (stack.lifecycle !== 'running')
    throw refuse('stack_not_running', { lifecycle: stack.lifecycle, action: REGISTER });
  const capReached = () =>
    refuse(
      'watched_projects_cap_reached',
      { stackId: stack.stackId, cap: stack.watchedProjectsCap },
      { extra: { watchedProjectsCap: stack.watchedProjectsCap } },
    );
  if (stack.projectCount >= stack.watchedProjectsCap) throw capReached();
  const project: Project = {
    projectId: `prj_${randomBytes(6).toString('hex')}`,
    stackId: stack.stackId,
    name: params.name,
    repository: params.repository,
    registeredAt: params.now.toISOString(),
    credentialRoutes: {},
  };
  if (await registerProject(params.tenantId, project, stack.watchedProjectsCap)) return projectView(project);
  const now = await requireStack(params.tenantId, params.stackId);
  if (now.projectCount >= now.watchedProjectsCap) throw capReached();
  if (
    (await listProjects(params.tenantId, params.stackId)).some(
      (p) => p.repository.toLowerCase() === params.repository.toLowerCase(),
    )
  )
    throw refuse('project_exists', { repository: params.repository });
  throw refuse('stack_not_running', { lifecycle: now.lifecycle, action: REGISTER });
};

export const stackProjects = async (params: { tenantId: string; stackId: string }) => {
  const stack = await requireStack(params.tenantId, params.stackId);
  const projects = await listProjects(params.tenantId, params.stackId);
  return {
    watchedProjectsCap: stack.watchedProjectsCap,
    projects: projects.sort((a, b) => a.registeredAt.localeCompare(b.registeredAt)).map(projectView),
  };
};

export const deleteProject = async (params: { tenantId: string; stackId: string; projectId: string }) => {
  await requireStack(params.tenantId, params.stackId);
  const project = (await listProjects(params.tenantId, params.stackId)).find(
    (p) => p.projectId === params.projectId,
  );
  if (!project || !(await removeProject(params.tenantId, project)))
    throw refuse('project_not_found', { stackId: params.stackId, projectId: params.projectId });
};
