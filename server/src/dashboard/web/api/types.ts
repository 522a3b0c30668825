// API stage: the shapes of the /v1 answers the dashboard reads (the parts it shows), as the
// Management API's OpenAPI document gives them.

export interface Profile {
  gotrue_id: string;
  primary_email: string;
  username: string;
}

export interface Organization {
  id: string;
  slug: string;
  name: string;
}

export interface Project {
  id: string;
  ref: string;
  organization_id: string;
  organization_slug?: string;
  name: string;
  region: string;
  created_at: string;
  status: string;
  database?: { host: string; version: string };
}

export interface ApiKey {
  api_key: string;
  id: string;
  type: "legacy" | "publishable" | "secret";
  prefix: string | null;
  name: string;
  description: string | null;
}

export interface ServiceHealth {
  name: string;
  healthy: boolean;
  status: string;
  error?: string;
}

export interface Migration {
  version: string;
  name?: string | null;
}

export interface Lint {
  name: string;
  title: string;
  level: string;
  detail: string;
  remediation?: string;
  metadata?: { schema?: string; name?: string; type?: string };
  cache_key: string;
}

export interface Branch {
  id: string;
  name: string;
  project_ref: string;
  parent_project_ref: string;
  status: string;
  created_at: string;
  with_data?: boolean;
  preview_project_status?: string;
  deletion_scheduled_at?: string;
}

export interface EdgeFunction {
  id: string;
  slug: string;
  name: string;
  status: string;
  version: number;
  verify_jwt?: boolean;
  updated_at: number | string;
}

export interface Secret {
  name: string;
  /** The SHA-256 of the value, never the value. */
  value: string;
  updated_at?: string;
}

export interface ReadOnlyStatus {
  enabled: boolean;
  override_enabled: boolean;
  override_active_until: string;
}

export interface NetworkRestrictions {
  entitlement: string;
  status: string;
  config: { dbAllowedCidrs?: string[]; dbAllowedCidrsV6?: string[] };
}

/** The core auth settings the settings page shows and edits. */
export interface AuthSettings {
  site_url: string | null;
  disable_signup: boolean | null;
  jwt_exp: number | null;
  external_email_enabled: boolean | null;
  mailer_autoconfirm: boolean | null;
  uri_allow_list: string | null;
}

export interface PostgrestConfig {
  db_schema: string;
  max_rows: number;
}

export interface Regions {
  all: { specific: Array<{ code: string; name: string }> };
}

/** A row of `database/query`: column names to values. */
export type Row = Record<string, unknown>;
