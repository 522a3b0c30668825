// Platform store: the fields of a project's auth configuration that were ever set (the rest read
// as their defaults). A patch is merged into the stored object in one statement.
import type { Sql } from "../platform/sql";

export type AuthConfigFields = Record<string, unknown>;

export class AuthConfigStore {
  constructor(private readonly sql: Sql) {}

  async get(projectId: number): Promise<AuthConfigFields> {
    const row = await this.sql.one<{ config: AuthConfigFields }>("select config from platform.project_auth_config where project_id = $1", [projectId]);
    return row?.config ?? {};
  }

  async merge(projectId: number, patch: AuthConfigFields): Promise<AuthConfigFields> {
    const row = await this.sql.one<{ config: AuthConfigFields }>(
      `insert into platform.project_auth_config as c (project_id, config) values ($1, $2)
       on conflict (project_id) do update set config = c.config || excluded.config returning config`,
      [projectId, patch],
    );
    return row!.config;
  }
}
