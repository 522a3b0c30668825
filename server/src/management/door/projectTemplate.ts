// Door (kernel): a project server → its project template database, made once (and template1
// closed to everyone but superusers): the extension, the API roles, the auth helpers and the
// grants; then closed to connections so CREATE DATABASE can copy it. Only the platform ever
// connects to it, on pinned sessions.
import format from "pg-format";
import { rolesSql } from "../../setup";
import { withPinnedSession } from "./pinnedSession";

export const templateDatabase = "pg_graphql_project_template";
// Arbitrary constant naming the template lock on each server.
const templateLock = 7_301_002;

// Every cluster has template1, and no role needs to connect to it. The maintenance database is
// left as the operator set it: a single-database deployment may serve from it.
const maintenanceDatabases = ["template1"];

export async function ensureTemplate(adminUrl: string, maintenance: string): Promise<void> {
  await withPinnedSession(adminUrl, maintenance, async (sql) => {
    // Serializes processes starting together; the lock ends with this connection.
    await sql.rows("select pg_catalog.pg_advisory_lock($1)", [templateLock]);
    for (const name of maintenanceDatabases) await sql.rows(format("revoke connect, temporary on database %I from public", name));
    const found = await sql.one<{ ready: boolean }>("select not datallowconn as ready from pg_catalog.pg_database where datname = $1", [templateDatabase]);
    if (found?.ready) return;
    // A template left connectable was being made when its process died: make it again.
    if (found) await sql.rows(format("drop database %I with (force)", templateDatabase));
    await sql.rows(format("create database %I", templateDatabase));
    await sql.rows(format("revoke connect, temporary on database %I from public", templateDatabase));
    await withPinnedSession(adminUrl, templateDatabase, async (t) => {
      try {
        await t.rows("create extension if not exists pg_graphql cascade");
      } catch (e) {
        throw new Error(`pg_graphql cannot be created on the project server (is it installed? run \`make install\`): ${(e as Error).message}`);
      }
      await t.rows(await rolesSql());
    });
    await sql.rows(format("alter database %I with is_template true allow_connections false", templateDatabase));
  });
}
