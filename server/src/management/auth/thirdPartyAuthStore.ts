// Platform store: a project's third-party auth integrations (an OIDC issuer and its keys), with
// the key set last resolved and, when resolving failed, why.
import type { JSONWebKeySet } from "jose";
import type { Sql } from "../platform/sql";
import { isoColumn } from "../platform/isoColumn";

export interface ThirdPartyAuthRecord {
  id: string;
  type: string;
  oidc_issuer_url: string | null;
  jwks_url: string | null;
  custom_jwks: JSONWebKeySet | null;
  resolved_jwks: JSONWebKeySet | null;
  resolved_at: string | null;
  resolve_error: string | null;
  inserted_at: string;
  updated_at: string;
}

export type NewThirdPartyAuth = Omit<ThirdPartyAuthRecord, "id" | "inserted_at" | "updated_at" | "resolved_at"> & { resolved: boolean };

const columns = `id::text as id, type, oidc_issuer_url, jwks_url, custom_jwks, resolved_jwks, ${isoColumn("resolved_at")}, resolve_error,
  ${isoColumn("inserted_at")}, ${isoColumn("updated_at")}`;

export class ThirdPartyAuthStore {
  constructor(private readonly sql: Sql) {}

  list(projectId: number): Promise<ThirdPartyAuthRecord[]> {
    return this.sql.rows<ThirdPartyAuthRecord>(`select ${columns} from platform.third_party_auth where project_id = $1 order by inserted_at, id`, [projectId]);
  }

  get(projectId: number, id: string): Promise<ThirdPartyAuthRecord | undefined> {
    return this.sql.one<ThirdPartyAuthRecord>(`select ${columns} from platform.third_party_auth where project_id = $1 and id = $2`, [projectId, id]);
  }

  async insert(projectId: number, tpa: NewThirdPartyAuth): Promise<ThirdPartyAuthRecord> {
    return (await this.sql.one<ThirdPartyAuthRecord>(
      `insert into platform.third_party_auth (project_id, type, oidc_issuer_url, jwks_url, custom_jwks, resolved_jwks, resolved_at, resolve_error)
       values ($1, $2, $3, $4, $5, $6, case when $7 then now() end, $8) returning ${columns}`,
      [projectId, tpa.type, tpa.oidc_issuer_url, tpa.jwks_url, tpa.custom_jwks, tpa.resolved_jwks, tpa.resolved, tpa.resolve_error],
    ))!;
  }

  /** Records the outcome of resolving the integration's keys again. */
  async setResolution(projectId: number, id: string, jwks: JSONWebKeySet | null, error: string | null): Promise<ThirdPartyAuthRecord | undefined> {
    return this.sql.one<ThirdPartyAuthRecord>(
      `update platform.third_party_auth set resolved_jwks = coalesce($3, resolved_jwks),
         resolved_at = case when $3::jsonb is null then resolved_at else now() end, resolve_error = $4, updated_at = now()
       where project_id = $1 and id = $2 returning ${columns}`,
      [projectId, id, jwks, error],
    );
  }

  async remove(projectId: number, id: string): Promise<void> {
    await this.sql.rows("delete from platform.third_party_auth where project_id = $1 and id = $2", [projectId, id]);
  }
}
