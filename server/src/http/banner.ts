// Server lifecycle: what a server serves and its base URL → the banner it prints once it listens
// (one `name: value` line per address or key; the tests and operators read it).
import { endpointPath, graphiqlPath } from "../dataApi";
import type { ManagementConfig } from "../management/managementConfig";
import { projectPathPrefix } from "../management/dataApi/projectGraphql";
import { dashboardPath } from "../dashboard/dashboardRoute";
import { Keyring, type ApiKeys } from "../keys";

export type BannerRow = [string, string];

export interface Served {
  /** The single database's data API, with its API keys. */
  keys?: ApiKeys;
  /** The Management API, with the secrets key file in use (when the key comes from one). */
  management?: { keyFile?: string | undefined };
}

export function banner(baseUrl: string, served: Served, extra: BannerRow[] = []): string {
  const { keys, management } = served;
  const rows: BannerRow[] = [
    ...(keys ? ([["GraphQL URL", `${baseUrl}${endpointPath}`], ["GraphiQL", `${baseUrl}${graphiqlPath}`]] as BannerRow[]) : []),
    ...(management
      ? ([
          ["Management API", `${baseUrl}/v1`],
          ["Dashboard", `${baseUrl}${dashboardPath}`],
          ["OpenAPI", `${baseUrl}/v1/openapi.json`],
          ["Project GraphQL", `${baseUrl}${projectPathPrefix.replace(":ref", "<ref>")}/graphql/v1`],
        ] as BannerRow[])
      : []),
    ["Health", `${baseUrl}/health`],
    ["Metrics", `${baseUrl}/metrics`],
    ...(keys ? ([["anon key", keys.anon], ["service_role key", keys.serviceRole]] as BannerRow[]) : []),
    ...(management?.keyFile ? ([["Secrets key file", management.keyFile]] as BannerRow[]) : []),
    ...extra,
  ];
  return aligned(rows);
}

/** The banner of a configuration, for a process that serves nothing itself (the workers'
 * primary): the keys come from the JWT secret, as the workers make them. */
export function bannerOf(config: { jwtSecret?: string; management?: Pick<ManagementConfig, "secretsKeyFile"> }): (baseUrl: string) => Promise<string> {
  return async (baseUrl) =>
    banner(baseUrl, {
      ...(config.jwtSecret !== undefined ? { keys: await new Keyring(config.jwtSecret).apiKeys() } : {}),
      ...(config.management ? { management: { keyFile: config.management.secretsKeyFile } } : {}),
    });
}

/** `name: value` lines with the names right-aligned. */
export function aligned(rows: BannerRow[]): string {
  const width = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padStart(width)}: ${v}`).join("\n");
}
