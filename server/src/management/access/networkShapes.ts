// Access (Management API): a project's stored network restrictions → the document's v1 and v2
// answers (read by the v1 routes and by the v2 config).
import type { RestrictionsRow } from "./networkRestrictions";
import type { Schema } from "../http/operation";

export function v1Shape(row: RestrictionsRow): Schema<"NetworkRestrictionsResponse"> {
  return {
    entitlement: "allowed",
    config: { dbAllowedCidrs: row.v4, dbAllowedCidrsV6: row.v6 },
    ...(row.old_v4 ? { old_config: { dbAllowedCidrs: row.old_v4, dbAllowedCidrsV6: row.old_v6 ?? [] } } : {}),
    status: row.status,
    ...(row.updated_at ? { updated_at: row.updated_at } : {}),
    ...(row.applied_at ? { applied_at: row.applied_at } : {}),
  };
}

export function v2Shape(row: RestrictionsRow): Schema<"NetworkRestrictionsV2Response"> {
  const { config: _config, old_config: _old, ...rest } = v1Shape(row);
  const entries = [...row.v4.map((address) => ({ address, type: "v4" as const })), ...row.v6.map((address) => ({ address, type: "v6" as const }))];
  return { ...rest, config: { dbAllowedCidrs: entries } };
}
