// Platform migrations in order. A new one is a new file here, appended to the list; applied
// versions never change.
import platform from "./0001_platform";
import keys from "./0100_keys";
import projectLogins from "./0200_project_logins";
import secrets from "./0400_secrets";
import functions from "./0401_functions";
import branches from "./0402_branches";

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const migrations: Migration[] = [platform, keys, projectLogins, secrets, functions, branches];
