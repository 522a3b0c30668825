// Settings stage: a project's stored settings → how its data API runs requests now (search path,
// pool size, whether mutations are refused). Pools are reopened when these change.
import { networkFilter, type AllowedNetworks } from "../access/networkRestrictions";
import { readOnlyNow, searchPathOf, type ProjectSettings } from "../settings/settingsStore";

export interface DataApiTuning {
  /** Equal for equal stored settings: a pool whose key differs from the stored one is stale. */
  key: string;
  /** The search path of every request: the exposed schemas, then the extra ones. */
  schemas: string[];
  /** Connections of the project's pool, when the project sets its own. */
  poolSize: number | undefined;
  /** Why mutations are refused at this moment, or undefined when they are allowed. */
  mutationsRefused(): string | undefined;
  /** Whether a client at this address may use the data API (network restrictions). */
  allows(address: string): boolean;
}

export const readOnlyMessage =
  "The project's database is in read-only mode: mutations are refused (POST /v1/projects/{ref}/readonly/temporary-disable lifts it for 15 minutes)";

export function dataApiTuning(settings: ProjectSettings, networks: AllowedNetworks, now: () => number): DataApiTuning {
  const { db_schema, db_extra_search_path, db_pool, readonly_enabled, readonly_override_until } = settings;
  return {
    key: JSON.stringify([db_schema, db_extra_search_path, db_pool, readonly_enabled, readonly_override_until, networks.v4, networks.v6]),
    allows: networkFilter(networks),
    schemas: searchPathOf(settings),
    poolSize: settings.db_pool ?? undefined,
    mutationsRefused: () => (readOnlyNow(settings, now()) ? readOnlyMessage : undefined),
  };
}
