import { QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { appliedUnlessConditionFails, db, tableName } from './client.ts';
import { keys } from './keys.ts';

const ProjectSchema = v.object({
  projectId: v.string(),
  stackId: v.string(),
  name: v.string(),
  repository: v.string(),
  registeredAt: v.string(),
});
export type Project = v.InferOutput<typeof ProjectSchema>;

/**
 * Registers a Project on a running Stack, under its Watched-Projects cap: the Stack's count goes up
 * by one only while it is below the cap, in one transaction with the Project and the claim of its
 * repository, so concurrent registrations never exceed the cap nor register a repository twice.
 */
export const registerProject = async (tenantId: string, project: Project, cap: number): Promise<boolean> =>
  appliedUnlessConditionFails(
    db().send(
      new TransactWriteCommand({
        TransactItems: [
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
        ],
      }),
    ),
  );

export const listProjects = async (tenantId: string, stackId: string): Promise<Project[]> => {
  const projects: Project[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: {
          ':pk': keys.tenant(tenantId).PK,
          ':prefix': keys.projectPrefix(stackId),
        },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) projects.push(v.parse(ProjectSchema, item));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return projects;
};

/** Removes a Project, frees its place under the cap and its repository. False when it was not there. */
export const removeProject = async (tenantId: string, project: Project): Promise<boolean> =>
  appliedUnlessConditionFails(
    db().send(
      new TransactWriteCommand({
        TransactItems: [
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
          {
            Update: {
              TableName: tableName(),
              Key: keys.stack(tenantId, project.stackId),
              UpdateExpression: 'SET projectCount = projectCount - :one',
              ConditionExpression: 'projectCount >= :one',
              ExpressionAttributeValues: { ':one': 1 },
            },
          },
        ],
      }),
    ),
  );
