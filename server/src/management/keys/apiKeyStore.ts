// Platform store: a project's opaque API keys (publishable and secret). Deleted keys stay as
// records (with whether they were compromised and why) but never open the project again.
import type { Sql } from "../platform/sql";
import { isoColumn } from "../platform/isoColumn";

export type ApiKeyType = "publishable" | "secret";

export interface ApiKeyRecord {
  id: string;
  type: ApiKeyType;
  name: string;
  description: string | null;
  api_key: string;
  secret_jwt_template: Record<string, unknown> | null;
  inserted_at: string;
  updated_at: string;
}

const columns = `id::text as id, type, name, description, api_key, secret_jwt_template, ${isoColumn("inserted_at")}, ${isoColumn("updated_at")}`;

export class ApiKeyStore {
  constructor(private readonly sql: Sql) {}

  list(projectId: number): Promise<ApiKeyRecord[]> {
    return this.sql.rows<ApiKeyRecord>(
      `select ${columns} from platform.project_api_keys where project_id = $1 and deleted_at is null order by inserted_at, id`,
      [projectId],
    );
  }

  get(projectId: number, id: string): Promise<ApiKeyRecord | undefined> {
    return this.sql.one<ApiKeyRecord>(
      `select ${columns} from platform.project_api_keys where project_id = $1 and id = $2 and deleted_at is null`,
      [projectId, id],
    );
  }

  async nameTaken(projectId: number, name: string, exceptId?: string): Promise<boolean> {
    const row = await this.sql.one(
      "select 1 from platform.project_api_keys where project_id = $1 and name = $2 and deleted_at is null and id is distinct from $3::uuid",
      [projectId, name, exceptId ?? null],
    );
    return row !== undefined;
  }

  async insert(projectId: number, key: Pick<ApiKeyRecord, "type" | "name" | "description" | "api_key" | "secret_jwt_template">): Promise<ApiKeyRecord> {
    return (await this.sql.one<ApiKeyRecord>(
      `insert into platform.project_api_keys (project_id, type, name, description, api_key, secret_jwt_template)
       values ($1, $2, $3, $4, $5, $6) returning ${columns}`,
      [projectId, key.type, key.name, key.description, key.api_key, key.secret_jwt_template],
    ))!;
  }

  /** The updated key; undefined when it was deleted meanwhile. */
  update(projectId: number, id: string, change: Pick<ApiKeyRecord, "name" | "description" | "secret_jwt_template">): Promise<ApiKeyRecord | undefined> {
    return this.sql.one<ApiKeyRecord>(
      `update platform.project_api_keys set name = $3, description = $4, secret_jwt_template = $5, updated_at = now()
       where project_id = $1 and id = $2 and deleted_at is null returning ${columns}`,
      [projectId, id, change.name, change.description, change.secret_jwt_template],
    );
  }

  async remove(projectId: number, id: string, wasCompromised: boolean, reason: string | null): Promise<void> {
    await this.sql.rows(
      `update platform.project_api_keys set deleted_at = now(), updated_at = now(), was_compromised = $3, deletion_reason = $4
       where project_id = $1 and id = $2 and deleted_at is null`,
      [projectId, id, wasCompromised, reason],
    );
  }
}
