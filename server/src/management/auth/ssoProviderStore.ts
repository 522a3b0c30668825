// Platform store: a project's SAML identity providers and the email domains routed to each.
// Entity ids and domains are unique within a project (constraints, checked first for messages).
import type { components } from "../openapi/managementApi.generated";
import type { Sql } from "../platform/sql";
import { isoColumn, isoText } from "../platform/isoColumn";

export interface SsoDomain {
  id: string;
  domain: string;
  created_at: string;
  updated_at: string;
}

export interface SsoProviderRecord {
  id: string;
  entity_id: string;
  metadata_xml: string;
  metadata_url: string | null;
  certificates: string[];
  /** As the create or update body gave it (validated against the document). */
  attribute_mapping: NonNullable<components["schemas"]["CreateProviderBody"]["attribute_mapping"]>;
  name_id_format: NonNullable<components["schemas"]["CreateProviderBody"]["name_id_format"]> | null;
  domains: SsoDomain[];
  created_at: string;
  updated_at: string;
}

export type SsoProviderFields = Pick<SsoProviderRecord, "entity_id" | "metadata_xml" | "metadata_url" | "certificates" | "attribute_mapping" | "name_id_format">;

const columns = `p.id::text as id, p.entity_id, p.metadata_xml, p.metadata_url, p.certificates, p.attribute_mapping, p.name_id_format,
  ${isoColumn("p.created_at", "created_at")}, ${isoColumn("p.updated_at", "updated_at")},
  coalesce((select json_agg(json_build_object('id', d.id, 'domain', d.domain,
      'created_at', ${isoText("d.created_at")},
      'updated_at', ${isoText("d.updated_at")}) order by d.domain)
    from platform.sso_domains d where d.provider_id = p.id), '[]') as domains`;

export class SsoProviderStore {
  constructor(private readonly sql: Sql) {}

  list(projectId: number): Promise<SsoProviderRecord[]> {
    return this.sql.rows<SsoProviderRecord>(`select ${columns} from platform.sso_providers p where p.project_id = $1 order by p.created_at, p.id`, [projectId]);
  }

  get(projectId: number, id: string): Promise<SsoProviderRecord | undefined> {
    return this.sql.one<SsoProviderRecord>(`select ${columns} from platform.sso_providers p where p.project_id = $1 and p.id = $2`, [projectId, id]);
  }

  /** The provider already registered with this entity id, other than `exceptId`. */
  async entityTaken(projectId: number, entityId: string, exceptId: string | null): Promise<boolean> {
    const row = await this.sql.one(
      "select 1 from platform.sso_providers where project_id = $1 and entity_id = $2 and id is distinct from $3::uuid",
      [projectId, entityId, exceptId],
    );
    return row !== undefined;
  }

  /** Those of `domains` already routed to a provider other than `exceptId`. */
  async domainsTaken(projectId: number, domains: string[], exceptId: string | null): Promise<string[]> {
    const rows = await this.sql.rows<{ domain: string }>(
      "select domain from platform.sso_domains where project_id = $1 and domain = any($2) and provider_id is distinct from $3::uuid order by domain",
      [projectId, domains, exceptId],
    );
    return rows.map((r) => r.domain);
  }

  async insert(projectId: number, fields: SsoProviderFields): Promise<string> {
    const row = await this.sql.one<{ id: string }>(
      `insert into platform.sso_providers (project_id, entity_id, metadata_xml, metadata_url, certificates, attribute_mapping, name_id_format)
       values ($1, $2, $3, $4, $5, $6, $7) returning id::text as id`,
      [projectId, fields.entity_id, fields.metadata_xml, fields.metadata_url, JSON.stringify(fields.certificates), fields.attribute_mapping, fields.name_id_format],
    );
    return row!.id;
  }

  async update(projectId: number, id: string, fields: SsoProviderFields): Promise<void> {
    await this.sql.rows(
      `update platform.sso_providers set entity_id = $3, metadata_xml = $4, metadata_url = $5, certificates = $6, attribute_mapping = $7,
         name_id_format = $8, updated_at = now() where project_id = $1 and id = $2`,
      [projectId, id, fields.entity_id, fields.metadata_xml, fields.metadata_url, JSON.stringify(fields.certificates), fields.attribute_mapping, fields.name_id_format],
    );
  }

  /** Replaces the provider's domains with `domains` (kept ones keep their ids and dates). */
  async setDomains(projectId: number, id: string, domains: string[]): Promise<void> {
    await this.sql.rows("delete from platform.sso_domains where provider_id = $1 and domain <> all($2)", [id, domains]);
    await this.sql.rows(
      `insert into platform.sso_domains (provider_id, project_id, domain) select $1, $2, d from unnest($3::text[]) d
       on conflict (project_id, domain) do nothing`,
      [id, projectId, domains],
    );
  }

  async remove(projectId: number, id: string): Promise<void> {
    await this.sql.rows("delete from platform.sso_providers where project_id = $1 and id = $2", [projectId, id]);
  }
}
