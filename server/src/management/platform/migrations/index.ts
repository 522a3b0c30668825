// Platform migrations in order. A new one is a new file here, appended to the list; applied
// versions never change.
import platform from "./0001_platform";
import keys from "./0100_keys";
import projectLogins from "./0200_project_logins";
import settings from "./0300_settings";
import network from "./0301_network";
import backups from "./0302_backups";
import networkBans from "./0303_network_bans";
import databaseOptions from "./0304_database_options";
import jitAccess from "./0305_jit_access";
import backupRetention from "./0306_backup_retention";
import secrets from "./0400_secrets";
import functions from "./0401_functions";
import branches from "./0402_branches";
import branchDeletion from "./0403_branch_deletion";
import oauth from "./0500_oauth";
import upgrades from "./0501_upgrades";
import domains from "./0502_domains";
import serviceSettings from "./0503_service_settings";
import snippets from "./0600_snippets";
import claimTokens from "./0601_claim_tokens";
import bundleFileNames from "./0720_bundle_file_names";

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const migrations: Migration[] = [
  platform,
  keys,
  projectLogins,
  settings,
  network,
  backups,
  networkBans,
  databaseOptions,
  jitAccess,
  backupRetention,
  secrets,
  functions,
  branches,
  branchDeletion,
  oauth,
  upgrades,
  domains,
  serviceSettings,
  snippets,
  claimTokens,
  bundleFileNames,
];
