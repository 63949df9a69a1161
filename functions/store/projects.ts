import * as v from 'valibot';
import { tableName, transactIf, updateIf } from './client.ts';
import { createPut, entity, getOne, listAll } from './entity.ts';
import { stack, stackCounterWrite } from './stacks.ts';

const ProjectSchema = v.object({
  projectId: v.string(),
  stackId: v.string(),
  name: v.string(),
  repository: v.string(),
  registeredAt: v.string(),
  /** Per activity, the Primary and optional Fallback Credential (names on the same Stack). */
  credentialRoutes: v.optional(
    v.object({
      intake: v.optional(v.object({ primary: v.string(), fallback: v.optional(v.string()) })),
      dispatch: v.optional(v.object({ primary: v.string(), fallback: v.optional(v.string()) })),
    }),
    {},
  ),
});
export type Project = v.InferOutput<typeof ProjectSchema>;

/** A Project registered on a Stack. */
export const project = entity({
  type: 'project',
  key: (tenantId: string, stackId: string, projectId: string) => ({
    PK: `TENANT#${tenantId}`,
    SK: `PROJECT#${stackId}#${projectId}`,
  }),
  schema: ProjectSchema,
  collection: (tenantId: string, stackId: string) => ({
    PK: `TENANT#${tenantId}`,
    prefix: `PROJECT#${stackId}#`,
  }),
});

/** Claims a repository on a Stack, so that it is registered once. */
export const projectRepository = entity({
  type: 'project_repository',
  key: (tenantId: string, stackId: string, repository: string) => ({
    PK: `TENANT#${tenantId}`,
    SK: `PROJECT_REPOSITORY#${stackId}#${repository.toLowerCase()}`,
  }),
  schema: v.object({ projectId: v.string() }),
});

/**
 * Registers a Project on a running Stack, under its Watched-Projects cap: the Stack's count goes up
 * by one only while it is below the cap, in one transaction with the Project and the claim of its
 * repository, so concurrent registrations never exceed the cap nor register a repository twice.
 */
export const registerProject = async (tenantId: string, registered: Project, cap: number): Promise<boolean> =>
  transactIf([
    {
      Update: {
        TableName: tableName(),
        Key: stack.key(tenantId, registered.stackId),
        UpdateExpression: 'SET projectCount = if_not_exists(projectCount, :zero) + :one',
        ConditionExpression:
          'attribute_exists(PK) AND lifecycle = :running AND (attribute_not_exists(projectCount) OR projectCount < :cap)',
        ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':cap': cap, ':running': 'running' },
      },
    },
    createPut(project, [tenantId, registered.stackId, registered.projectId], registered),
    createPut(projectRepository, [tenantId, registered.stackId, registered.repository], {
      projectId: registered.projectId,
    }),
  ]);

export const listProjects = (tenantId: string, stackId: string): Promise<Project[]> =>
  listAll(project, tenantId, stackId);

/** Removes a Project, frees its place under the cap and its repository. False when it was not there. */
export const removeProject = async (tenantId: string, removed: Project): Promise<boolean> =>
  transactIf([
    {
      Delete: {
        TableName: tableName(),
        Key: project.key(tenantId, removed.stackId, removed.projectId),
        ConditionExpression: 'attribute_exists(PK)',
      },
    },
    {
      Delete: {
        TableName: tableName(),
        Key: projectRepository.key(tenantId, removed.stackId, removed.repository),
      },
    },
    stackCounterWrite(
      tenantId,
      removed.stackId,
      'SET projectCount = projectCount - :one',
      'projectCount >= :one',
    ),
  ]);

/** Sets a Project's Credential Routes (the Project must exist). */
export const setCredentialRoutes = async (
  tenantId: string,
  stackId: string,
  projectId: string,
  routes: Project['credentialRoutes'],
): Promise<boolean> =>
  updateIf({
    Key: project.key(tenantId, stackId, projectId),
    UpdateExpression: 'SET credentialRoutes = :routes',
    ConditionExpression: 'attribute_exists(PK)',
    ExpressionAttributeValues: { ':routes': routes },
  });

export const getProject = (
  tenantId: string,
  stackId: string,
  projectId: string,
): Promise<Project | undefined> => getOne(project, tenantId, stackId, projectId);
