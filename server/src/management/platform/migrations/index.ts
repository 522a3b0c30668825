// Platform migrations in order. A new one is a new file here, appended to the list; applied
// versions never change.
import platform from "./0001_platform";
import oauth from "./0500_oauth";
import upgrades from "./0501_upgrades";
import domains from "./0502_domains";
import settings from "./0503_settings";

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const migrations: Migration[] = [platform, oauth, upgrades, domains, settings];
