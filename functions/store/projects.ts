import * as v from 'valibot';
import { getItem, queryPrefix, tableName, transactIf, updateIf } from './client.ts';
import { keys } from './keys.ts';
import { stackCounterWrite } from './stacks.ts';

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

/**
 * Registers a Project on a running Stack, under its Watched-Projects cap: the Stack's count goes up
 * by one only while it is below the cap, in one transaction with the Project and the claim of its
 * repository, so concurrent registrations never exceed the cap nor register a repository twice.
 */
export const registerProject = async (tenantId: string, project: Project, cap: number): Promise<boolean> =>
  transactIf([
    {
      Update: {
        TableName: tableName(),
        Key: keys.stack(tenantId, project.stackId),
        UpdateExpression: 'SET projectCount = if_not_exists(projectCount, :zero) + :one',
        ConditionExpression:
          'attribute_exists(PK) AND lifecycle = :running AND (attribute_not_exists(projectCount) OR projectCount < :cap)',
        ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':cap': cap, ':running': 'running' },
      },
    },
    {
      Put: {
        TableName: tableName(),
        Item: {
          ...keys.project(tenantId, project.stackId, project.projectId),
          type: 'project',
          ...project,
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
    {
      Put: {
        TableName: tableName(),
        Item: {
          ...keys.projectRepository(tenantId, project.stackId, project.repository),
          type: 'project_repository',
          projectId: project.projectId,
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
  ]);

export const listProjects = (tenantId: string, stackId: string): Promise<Project[]> =>
  queryPrefix(keys.tenant(tenantId).PK, keys.projectPrefix(stackId), ProjectSchema);

/** Removes a Project, frees its place under the cap and its repository. False when it was not there. */
export const removeProject = async (tenantId: string, project: Project): Promise<boolean> =>
  transactIf([
    {
      Delete: {
        TableName: tableName(),
        Key: keys.project(tenantId, project.stackId, project.projectId),
        ConditionExpression: 'attribute_exists(PK)',
      },
    },
    {
      Delete: {
        TableName: tableName(),
        Key: keys.projectRepository(tenantId, project.stackId, project.repository),
      },
    },
    stackCounterWrite(
      tenantId,
      project.stackId,
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
    Key: keys.project(tenantId, stackId, projectId),
    UpdateExpression: 'SET credentialRoutes = :routes',
    ConditionExpression: 'attribute_exists(PK)',
    ExpressionAttributeValues: { ':routes': routes },
  });

export const getProject = (
  tenantId: string,
  stackId: string,
  projectId: string,
): Promise<Project | undefined> => getItem(keys.project(tenantId, stackId, projectId), ProjectSchema);
