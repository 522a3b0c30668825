// Management API: an organization's entitlements → what this server actually does, feature by
// feature of the hosted list. Nothing here depends on a plan (every organization has the same):
// a feature is granted when this server carries it out, and refused when it only records the
// setting (disk, compute, domains) or has no service for it (Storage, Realtime, Auth, PITR).
import { maxFileBytes } from "../functions/functionUploads";
import type { components } from "../openapi/managementApi.generated";
import { keptScheduled } from "../backups/backups";

export type EntitlementType = "boolean" | "numeric" | "set";

export type EntitlementConfig =
  | { enabled: boolean }
  | { enabled: boolean; value: number; unlimited: boolean; unit: string }
  | { enabled: boolean; set: string[] };

/** An entitlement as the Management API document describes it. */
export type Entitlement = components["schemas"]["V1ListEntitlementsResponse"]["entitlements"][number];
type FeatureKey = Entitlement["feature"]["key"];

type Grant =
  | { kind: "boolean"; granted: boolean }
  | { kind: "numeric"; granted: boolean; value: number; unlimited: boolean; unit: string }
  | { kind: "set"; granted: boolean; set: string[] };

const yes: Grant = { kind: "boolean", granted: true };
const no: Grant = { kind: "boolean", granted: false };
const none = (unit: string): Grant => ({ kind: "numeric", granted: false, value: 0, unlimited: false, unit });
const unlimited = (unit: string): Grant => ({ kind: "numeric", granted: true, value: 0, unlimited: true, unit });
const emptySet: Grant = { kind: "set", granted: false, set: [] };

/** Backups are daily, and the newest of them keep their dump. */
const backupRetentionDays = keptScheduled;
const functionSizeLimitMb = maxFileBytes / (1024 * 1024);

/** Every feature key of the hosted list, in its order, with what this server grants. */
const grants: [FeatureKey, Grant][] = [
  // The compute size and the disk are recorded, never changed; a standby replicates a whole
  // server, not one project.
  ["instances.compute_update_available_sizes", emptySet],
  ["instances.read_replicas", no],
  ["instances.disk_modifications", no],
  ["instances.high_availability", no],
  ["instances.orioledb", no],
  ["replication.etl", no],
  // No Storage service runs here.
  ["storage.max_file_size", none("bytes")],
  ["storage.max_file_size.configurable", no],
  ["storage.image_transformations", no],
  ["storage.vector_buckets", no],
  ["storage.iceberg_catalog", no],
  ["security.audit_logs_days", none("days")],
  ["security.questionnaire", no],
  ["security.soc2_report", no],
  ["security.iso27001_certificate", no],
  ["security.private_link", no],
  // Sign-in is by access token: there is no second factor to enforce.
  ["security.enforce_mfa", no],
  // Request logs are kept until their project is deleted.
  ["log.retention_days", unlimited("days")],
  // Custom hostnames and vanity subdomains are recorded and verified, but nothing routes by them.
  ["custom_domain", no],
  ["vanity_subdomain", no],
  ["ipv4", no],
  // No WAL archive: point-in-time recovery has nothing to replay.
  ["pitr.available_variants", emptySet],
  ["log_drains", no],
  ["audit_log_drains", no],
  ["branching_limit", unlimited("branches")],
  // Every branch stays until it is deleted.
  ["branching_persistent", yes],
  // Auth settings are stored for an Auth server this one does not run.
  ["auth.mfa_phone", no],
  ["auth.mfa_web_authn", no],
  ["auth.mfa_enhanced_security", no],
  ["auth.hooks", no],
  ["auth.platform.sso", no],
  ["auth.custom_jwt_template", no],
  ["auth.saml_2", no],
  ["auth.user_sessions", no],
  ["auth.leaked_password_protection", no],
  ["auth.advanced_auth_settings", no],
  ["auth.performance_settings", no],
  ["auth.password_hibp", no],
  ["auth.custom_oauth.max_providers", none("providers")],
  ["backup.retention_days", { kind: "numeric", granted: true, value: backupRetentionDays, unlimited: false, unit: "days" }],
  ["backup.restore_to_new_project", no],
  ["backup.schedule", yes],
  // Functions are stored and served back, never run.
  ["function.max_count", unlimited("functions")],
  ["function.size_limit_mb", { kind: "numeric", granted: true, value: functionSizeLimitMb, unlimited: false, unit: "MB" }],
  // No Realtime service runs here.
  ["realtime.max_concurrent_users", none("users")],
  ["realtime.max_events_per_second", none("events")],
  ["realtime.max_joins_per_second", none("joins")],
  ["realtime.max_channels_per_client", none("channels")],
  ["realtime.max_bytes_per_second", none("bytes")],
  ["realtime.max_presence_events_per_second", none("events")],
  ["realtime.max_payload_size_in_kb", none("KB")],
  // Every member is an owner of the whole organization.
  ["project_scoped_roles", no],
  ["security.member_roles", no],
  ["project_pausing", yes],
  ["project_cloning", no],
  // A paused project can be restored for as long as it exists.
  ["project_restore_after_expiry", yes],
  ["assistant.advance_model", no],
  ["integrations.github_connections", no],
  ["dedicated_pooler", no],
  ["observability.dashboard_advanced_metrics", no],
];

function configOf(grant: Grant): EntitlementConfig {
  switch (grant.kind) {
    case "boolean":
      return { enabled: grant.granted };
    case "numeric":
      return { enabled: grant.granted, value: grant.value, unlimited: grant.unlimited, unit: grant.unit };
    case "set":
      return { enabled: grant.granted, set: grant.set };
    default: {
      const unknown: never = grant;
      throw new Error(`unknown grant ${JSON.stringify(unknown)}`);
    }
  }
}

function entitlement(key: FeatureKey, grant: Grant): Entitlement {
  return { feature: { key, type: grant.kind }, hasAccess: grant.granted, type: grant.kind, config: configOf(grant) };
}

/** The entitlements every organization on this server has. */
export function entitlements(): { entitlements: Entitlement[] } {
  return { entitlements: grants.map(([key, grant]) => entitlement(key, grant)) };
}
