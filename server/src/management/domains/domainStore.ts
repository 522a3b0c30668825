// Domains stage (Management API): a project's custom hostname and vanity subdomain rows → typed
// state; the custom hostname steps move only forward (1_not_started → 2_initiated →
// 3_challenge_verified → 5_services_reconfigured), each from the state before it.
import type { Sql } from "../platform/sql";

export type HostnameStatus = "1_not_started" | "2_initiated" | "3_challenge_verified" | "5_services_reconfigured";

export interface ProjectDomains {
  custom_hostname: string | null;
  hostname_status: HostnameStatus;
  verification_token: string | null;
  vanity_subdomain: string | null;
}

const empty: ProjectDomains = { custom_hostname: null, hostname_status: "1_not_started", verification_token: null, vanity_subdomain: null };

export class DomainStore {
  constructor(private readonly sql: Sql) {}

  async get(ref: string): Promise<ProjectDomains> {
    const row = await this.sql.one<ProjectDomains>(
      "select custom_hostname, hostname_status, verification_token, vanity_subdomain from platform.project_domains where project_ref = $1",
      [ref],
    );
    return row ?? empty;
  }

  /** Sets the hostname state, only when the current state is one of `from`; false otherwise. */
  async moveHostname(ref: string, from: HostnameStatus[], to: HostnameStatus, hostname: string | null, token: string | null): Promise<boolean> {
    if (!from.includes("1_not_started")) {
      const updated = await this.sql.one(
        `update platform.project_domains set custom_hostname = $3, hostname_status = $4, verification_token = $5, updated_at = now()
          where project_ref = $1 and hostname_status = any($2) returning 1`,
        [ref, from, hostname, to, token],
      );
      return updated !== undefined;
    }
    const row = await this.sql.one(
      `insert into platform.project_domains as d (project_ref, custom_hostname, hostname_status, verification_token)
       values ($1, $3, $4, $5)
       on conflict (project_ref) do update set custom_hostname = $3, hostname_status = $4, verification_token = $5, updated_at = now()
        where d.hostname_status = any($2)
       returning 1`,
      [ref, from, hostname, to, token],
    );
    return row !== undefined;
  }

  /** Whether a vanity subdomain is free: no other project uses it, and it is no project's ref. */
  async subdomainFree(ref: string, subdomain: string): Promise<boolean> {
    const row = await this.sql.one(
      `select 1 from platform.project_domains where vanity_subdomain = $2 and project_ref <> $1
       union all select 1 from platform.projects where ref = $2 and ref <> $1`,
      [ref, subdomain],
    );
    return row === undefined;
  }

  async setSubdomain(ref: string, subdomain: string | null): Promise<void> {
    await this.sql.rows(
      `insert into platform.project_domains (project_ref, vanity_subdomain) values ($1, $2)
       on conflict (project_ref) do update set vanity_subdomain = $2, updated_at = now()`,
      [ref, subdomain],
    );
  }
}
