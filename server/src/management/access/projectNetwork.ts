// Routes (Management API): a project's network restrictions, SSL enforcement and bans (addresses refused by its
// data API after repeated failed authentication). Applied at once to its data API;
// the database itself is restricted only on servers whose pg_hba.conf this process manages, and
// the `x-database-enforcement` header says whether it was.
import { applyHbaBlock } from "./hbaBlock";
import { isIP } from "node:net";
import { ApiError } from "../http/apiError";
import { checkCidrs, clientAddress, type AllowedNetworks, type RestrictionsRow } from "./networkRestrictions";
import { v1Shape, v2Shape } from "./networkShapes";
import type { ProjectRecord } from "../tenants/projectStore";
import { requireProject } from "../http/access";
import type { AnswerOf, ApiArea, Caller, Schema } from "../http/operation";

/** Checks, stores and enforces the networks; answers the stored row and how the database took it. */
async function enforce(call: Caller, project: ProjectRecord, requested: AllowedNetworks): Promise<{ row: RestrictionsRow; database: string }> {
  const { restrictions, pools, door } = call.services;
  const networks = checkCidrs(requested);
  await restrictions.store(project.ref, networks);
  await pools.changed(project.ref);
  const sslOnly = await call.services.databaseOptions.sslEnforced(project.ref);
  const outcome = await applyHbaBlock(door.server(project.server), project.database_name, { networks, sslOnly });
  if (outcome.kind === "notManaged") call.request.log.warn({ ref: project.ref, reason: outcome.reason }, "network restrictions not enforced by the database");
  await restrictions.markApplied(project.ref);
  return { row: await restrictions.get(project.ref), database: outcome.kind === "applied" ? "applied" : `not applied: ${outcome.reason}` };
}

function answer<S extends number, B>(status: S, body: B, database: string): AnswerOf<S, B> {
  return { status, body, headers: { "x-database-enforcement": database } };
}

export const projectNetworkArea: ApiArea = {
  "v1-get-network-restrictions": async (call) => {
    const project = await requireProject(call);
    return { status: 200, body: v1Shape(await call.services.restrictions.get(project.ref)) };
  },

  "v1-update-network-restrictions": async (call) => {
    const project = await requireProject(call);
    const body = call.body;
    const current = await call.services.restrictions.get(project.ref);
    const { row, database } = await enforce(call, project, { v4: body.dbAllowedCidrs ?? current.v4, v6: body.dbAllowedCidrsV6 ?? current.v6 });
    return answer(201, v1Shape(row), database);
  },

  "v1-patch-network-restrictions": async (call) => {
    const project = await requireProject(call);
    const { add = {}, remove = {} } = call.body;
    const current = await call.services.restrictions.get(project.ref);
    // Removals compare canonical forms, so "10.0.0.0/8" removes what "10.0.0.0/8" added.
    const removed = checkCidrs({ v4: remove.dbAllowedCidrs ?? [], v6: remove.dbAllowedCidrsV6 ?? [] });
    const next = {
      v4: [...current.v4.filter((c) => !removed.v4.includes(c)), ...(add.dbAllowedCidrs ?? [])],
      v6: [...current.v6.filter((c) => !removed.v6.includes(c)), ...(add.dbAllowedCidrsV6 ?? [])],
    };
    const { row, database } = await enforce(call, project, next);
    return answer(200, v2Shape(row), database);
  },
};

export const projectNetworkBansArea: ApiArea = {
  "v1-list-all-network-bans": async (call) => {
    const project = await requireProject(call);
    return { status: 201, body: { banned_ipv4_addresses: await call.services.bans.list(project.ref) } };
  },

  "v1-list-all-network-bans-enriched": async (call) => {
    const project = await requireProject(call);
    const addresses = await call.services.bans.list(project.ref);
    const banned = addresses.map((banned_address) => ({ banned_address, identifier: project.ref, type: "data_api_authentication" }));
    return { status: 201, body: { banned_ipv4_addresses: banned } };
  },

  "v1-delete-network-bans": async (call) => {
    const project = await requireProject(call);
    const body = call.body;
    const bad = body.ipv4_addresses.filter((a) => isIP(a) === 0);
    if (bad.length > 0) throw new ApiError(400, `Not IP addresses: ${bad.join(", ")}; nothing was changed`);
    const addresses = [...body.ipv4_addresses, ...(body.requester_ip ? [clientAddress(call.request.ip)] : [])];
    await call.services.bans.unban(project.ref, addresses);
    return { status: 200, body: {} };
  },
};

export const projectSslArea: ApiArea = {
  "v1-get-ssl-enforcement-config": async (call) => {
    const project = await requireProject(call);
    return { status: 200, body: { currentConfig: { database: await call.services.databaseOptions.sslEnforced(project.ref) }, appliedSuccessfully: true } };
  },

  "v1-update-ssl-enforcement-config": async (call) => {
    const project = await requireProject(call);
    const { database } = call.body.requestedConfig;
    const { door, restrictions, databaseOptions } = call.services;
    const server = door.server(project.server);
    if (database && !(await server.settings.ssl())) {
      throw new ApiError(400, "This PostgreSQL server has SSL turned off (ssl = off): connections to it cannot be required to use SSL; nothing was changed");
    }
    await databaseOptions.setSslEnforced(project.ref, database);
    const outcome = await applyHbaBlock(server, project.database_name, { networks: await restrictions.get(project.ref), sslOnly: database });
    const body = { currentConfig: { database }, appliedSuccessfully: outcome.kind === "applied" };
    return answer(200, body, outcome.kind === "applied" ? "applied" : `not applied: ${outcome.reason}`);
  },
};
