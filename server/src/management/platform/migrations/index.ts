// Platform migrations in order. A new one is a new file here, appended to the list; applied
// versions never change.
import platform from "./0001_platform";
import keys from "./0100_keys";
import projectLogins from "./0200_project_logins";

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const migrations: Migration[] = [platform, keys, projectLogins];
