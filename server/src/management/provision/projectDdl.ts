// Provision stage: the DDL that makes and unmakes a project's roles and database on its server.
// Names and passwords cannot be parameters, so every statement is built with pg-format.
import format from "pg-format";

export interface ProjectNames {
  database: string;
  owner: string;
  authenticator: string;
  /** The platform's own logins into the database (made on first use by the SQL endpoints). */
  ownerLogin: string;
  readOnly: string;
}

export function projectNames(ref: string): ProjectNames {
  return {
    database: ref,
    owner: `${ref}_owner`,
    authenticator: `${ref}_authenticator`,
    ownerLogin: `${ref}_login`,
    readOnly: `${ref}_readonly`,
  };
}

/** Run on the server's maintenance database, one statement at a time. */
export function createRolesDdl(names: ProjectNames, ownerVerifier: string, authenticatorVerifier: string): string[] {
  return [
    // Never CREATEROLE: in PostgreSQL 15 it could grant itself pg_execute_server_program.
    format(
      "create role %I login inherit nosuperuser nocreatedb nocreaterole noreplication nobypassrls password %L",
      names.owner,
      ownerVerifier,
    ),
    format(
      "create role %I login noinherit nosuperuser nocreatedb nocreaterole noreplication nobypassrls password %L",
      names.authenticator,
      authenticatorVerifier,
    ),
    format("grant anon, authenticated, service_role to %I", names.authenticator),
  ];
}

export function createDatabaseDdl(names: ProjectNames, template: string): string {
  return format("create database %I owner %I template %I", names.database, names.owner, template);
}

/** Run inside the new database as a superuser. */
export function prepareDatabaseDdl(names: ProjectNames): string {
  const apiRoles = "anon, authenticated, service_role";
  return [
    format("revoke connect, temporary on database %I from public", names.database),
    format("grant connect, temporary on database %I to %I", names.database, names.owner),
    format("grant connect on database %I to %I", names.database, names.authenticator),
    // Objects the owner creates get the grants hosted projects give the API roles.
    ...["tables", "routines", "sequences"].map((kind) =>
      format(`alter default privileges for role %I in schema public grant all on ${kind} to ${apiRoles}`, names.owner),
    ),
    format("grant usage on schema auth to %I", names.owner),
  ].join(";\n");
}

export function dropDatabaseDdl(names: ProjectNames): string {
  return format("drop database if exists %I with (force)", names.database);
}

export function dropRolesDdl(names: ProjectNames): string[] {
  return [names.readOnly, names.ownerLogin, names.authenticator, names.owner].map((role) => format("drop role if exists %I", role));
}

export function setConnectionsDdl(names: ProjectNames, allowed: boolean): string {
  return format("alter database %I with allow_connections %s", names.database, allowed ? "true" : "false");
}
