// OpenAPI stage: where this server's contract differs from the published document, each
// difference is one function that edits the loaded document (never the file).
import { newerFields } from "./authNewerFields";
import type { OpenApiDocument } from "./managementDocument";

type Adjustment = (doc: OpenApiDocument) => void;

/** The published document marks some schemas with `hideDefinitions`, which OpenAPI 3.0 does not
 * allow (only `x-` extensions), so validators of the document reject it. */
const dropNonStandardKeywords: Adjustment = (doc) => {
  for (const schema of Object.values(doc.components.schemas)) delete schema.hideDefinitions;
};

/** Project create: clients send either `organization_slug` (the document, the CLI) or the older
 * `organization_id`; a region (or a region selection) is required; the password must not be empty. */
const createProjectBody: Adjustment = (doc) => {
  const body = doc.components.schemas["V1CreateProjectBody"];
  if (!body) return;
  body.required = ["db_pass", "name"];
  body.properties.db_pass = { ...body.properties.db_pass, minLength: 1 };
  body.properties.name = { ...body.properties.name, minLength: 1 };
  body.allOf = [
    { anyOf: [{ required: ["organization_slug"] }, { required: ["organization_id"] }] },
    { anyOf: [{ required: ["region"] }, { required: ["region_selection"] }] },
  ];
};

/** Organization create: an empty name is refused. */
const createOrganizationBody: Adjustment = (doc) => {
  const body = doc.components.schemas["CreateOrganizationV1"];
  if (body) body.properties.name = { ...body.properties.name, minLength: 1 };
};

/** Auth configuration patch: a field the schema does not name (or a read-only one) is refused,
 * not silently dropped, so a misspelt setting is never reported as saved. */
const strictAuthConfigBody: Adjustment = (doc) => {
  const body = doc.components.schemas["UpdateAuthConfigBody"];
  if (body) body.additionalProperties = false;
};

/** Third-party auth: why its keys could not be fetched, when they could not (`resolved_at` null). */
const thirdPartyResolveError: Adjustment = (doc) => {
  const tpa = doc.components.schemas["ThirdPartyAuth"];
  if (tpa) tpa.properties.resolve_error = { type: "string", nullable: true };
};

/** Function uploads: a multipart deploy is read part by part by its handler, and an eszip
 * arrives as bytes (a Buffer), so neither has a body schema to validate. Create and update also
 * take the source file itself as `text/plain` (the entrypoint, stored byte for byte). */
const functionUploads: Adjustment = (doc) => {
  for (const path of ["/v1/projects/{ref}/functions", "/v1/projects/{ref}/functions/{function_slug}", "/v1/projects/{ref}/functions/deploy"]) {
    for (const operation of Object.values(doc.paths[path] ?? {}) as { requestBody?: { content: Record<string, { schema?: unknown }> } }[]) {
      const content = operation.requestBody?.content;
      if (content?.["application/vnd.denoland.eszip"]) content["text/plain"] = {};
      for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) {
        if (type !== "application/json") media.schema = {};
      }
    }
  }
};

/** Branch config: `exclusiveMinimum: true` is OpenAPI 3.0's boolean form, which the JSON Schema
 * draft of the serializer rejects; a port is at least 1. */
const branchConfigPort: Adjustment = (doc) => {
  const port = doc.components.schemas["BranchDetailResponse"]?.properties.db_port;
  if (port) {
    delete port.exclusiveMinimum;
    port.minimum = 1;
  }
};

/** The CLI's `logs --remote` reads `analytics/endpoints/logs`, which the document does not list:
 * served by the logs.all handler. */
const cliLogsPath: Adjustment = (doc) => {
  const all = doc.paths["/v1/projects/{ref}/analytics/endpoints/logs.all"]?.["get"];
  if (all) doc.paths["/v1/projects/{ref}/analytics/endpoints/logs"] = { get: { ...all } };
};

/** PostgREST settings answers: newer clients (the CLI's `config push`) require the pool timings,
 * which the document does not list yet. */
const postgrestPoolTimings: Adjustment = (doc) => {
  for (const name of ["V1PostgrestConfigResponse", "PostgrestConfigWithJWTSecretResponse"]) {
    const schema = doc.components.schemas[name];
    if (!schema) continue;
    for (const key of ["db_pool_acquisition_timeout", "db_pool_max_lifetime", "db_pool_max_idletime"]) schema.properties[key] = { type: "integer" };
  }
};

/** Auth configuration answers: the fields newer clients require (the CLI's `config push`). */
const authNewerFields: Adjustment = (doc) => {
  const schema = doc.components.schemas["AuthConfigResponse"];
  if (schema) for (const [name, value] of Object.entries(newerFields)) schema.properties[name] = { type: typeof value };
};

/** Settings bodies: an unknown (misspelt) setting is refused rather than silently ignored. */
const closedSettingsBodies: Adjustment = (doc) => {
  for (const name of ["V1UpdatePostgrestConfigBody"]) {
    const body = doc.components.schemas[name];
    if (body) body.additionalProperties = false;
  }
};

/** A path that declares its own HEAD (a count in a header) lists it before its GET: routes are
 * registered in that order, and Fastify derives a HEAD from a GET only when none exists yet. */
const headBeforeGet: Adjustment = (doc) => {
  for (const [path, item] of Object.entries(doc.paths)) {
    const { head, ...rest } = item;
    if (head !== undefined) doc.paths[path] = { head, ...rest };
  }
};

/** Snippets: the document lists and reads them but has no way to save or delete one (the hosted
 * dashboard saves them through its own API), so this server adds both. */
const snippetWrites: Adjustment = (doc) => {
  const list = doc.paths["/v1/snippets"]?.["get"] as { security?: unknown } | undefined;
  const one = doc.paths["/v1/snippets/{id}"];
  if (!list || !one) return;
  doc.components.schemas["CreateSnippetBody"] = {
    type: "object",
    additionalProperties: false,
    required: ["project_ref", "name", "sql"],
    properties: {
      project_ref: { type: "string", pattern: "^[a-z]{20}$" },
      name: { type: "string", minLength: 1, maxLength: 256 },
      description: { type: "string", nullable: true, maxLength: 10000 },
      visibility: { type: "string", enum: ["user", "project", "org", "public"] },
      favorite: { type: "boolean" },
      sql: { type: "string", minLength: 1, maxLength: 1000000 },
    },
  };
  const common = { tags: ["Database"], security: list.security, "x-oauth-scope": "database:write" };
  doc.paths["/v1/snippets"]!["post"] = {
    ...common,
    operationId: "v1-create-a-snippet",
    summary: "Saves an SQL snippet of the logged in user (an addition of this server)",
    requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/CreateSnippetBody" } } } },
    responses: { "201": { description: "", content: { "application/json": { schema: { $ref: "#/components/schemas/SnippetResponse" } } } } },
  };
  one["delete"] = {
    ...common,
    operationId: "v1-delete-a-snippet",
    summary: "Deletes an SQL snippet of the logged in user (an addition of this server)",
    parameters: (one["get"] as { parameters?: unknown }).parameters,
    responses: { "200": { description: "" } },
  };
};

/** Disk schemas: `exclusiveMinimum: true` (OpenAPI 3.0's boolean form, which the serializer's
 * JSON Schema draft rejects) is on integers only, so it becomes the next integer as the minimum. */
const diskExclusiveMinimum: Adjustment = (doc) => {
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== "object") return;
    const schema = node as Record<string, unknown>;
    if (schema.exclusiveMinimum === true && schema.type === "integer") {
      delete schema.exclusiveMinimum;
      schema.minimum = Number(schema.minimum ?? 0) + 1;
    }
    Object.values(schema).forEach(visit);
  };
  for (const name of ["DiskResponse", "DiskRequestBody", "DiskAutoscaleConfig"]) visit(doc.components.schemas[name]);
};

/** The data API's description is a whole document of its own: its declared `type: object` with
 * no properties would serialize as `{}`, so every property passes. */
const openDatabaseOpenapi: Adjustment = (doc) => {
  const get = doc.paths["/v1/projects/{ref}/database/openapi"]?.["get"] as { responses?: Record<string, { content?: Record<string, { schema?: object }> }> } | undefined;
  const media = get?.responses?.["200"]?.content?.["application/json"];
  if (media) media.schema = { type: "object", additionalProperties: true };
};

/** The CLI's `config push` reads `/v2/projects/{ref}/config`, newer than the document: one
 * operation whose answer is a whole configuration document (its shape is the CLI's). */
const projectConfigV2: Adjustment = (doc) => {
  const get = doc.paths["/v1/projects/{ref}/config/auth"]?.["get"] as { parameters?: unknown; security?: unknown } | undefined;
  if (!get) return;
  doc.paths["/v2/projects/{ref}/config"] = {
    get: {
      operationId: "v2-get-project-config",
      summary: "The project's database, pooler, Auth, Data API, Realtime and Storage configuration",
      tags: ["Projects"],
      parameters: get.parameters,
      security: get.security,
      "x-oauth-scope": "database:read",
      responses: { "200": { description: "", content: { "application/json": { schema: { type: "object", additionalProperties: true } } } } },
    },
  };
};

/** Entitlements: an answer's `config` is one of three objects whose properties extend each other,
 * and the response serializer writes the first alternative the value matches, so the numeric and
 * set forms come before the bare `{enabled}` that every config matches. */
const entitlementConfigOrder: Adjustment = (doc) => {
  const config = doc.components.schemas["V1ListEntitlementsResponse"]?.properties?.entitlements?.items?.properties?.config;
  if (!Array.isArray(config?.oneOf)) return;
  const size = (alternative: { required?: string[] }) => alternative.required?.length ?? 0;
  config.oneOf = [...config.oneOf].sort((a, b) => size(b) - size(a));
};

/** Answers the document lists without content that carry one here (and in the hosted API): a
 * query's rows (the last result set, as objects by column name), and the names a bulk secret
 * delete did not find. Described so the handlers' answers are typed and checked against them. */
const answersWithContent: Adjustment = (doc) => {
  const json = (schema: object) => ({ "application/json": { schema } });
  const rows = json({ type: "array", items: { type: "object", additionalProperties: true } });
  for (const path of ["/v1/projects/{ref}/database/query", "/v1/projects/{ref}/database/query/read-only"]) {
    const created = (doc.paths[path]?.["post"] as { responses?: Record<string, { content?: unknown }> } | undefined)?.responses?.["201"];
    if (created) created.content = rows;
  }
  const deleted = (doc.paths["/v1/projects/{ref}/secrets"]?.["delete"] as { responses?: Record<string, { content?: unknown }> } | undefined)?.responses?.["200"];
  if (deleted) deleted.content = json({ type: "object", properties: { missing: { type: "array", items: { type: "string" } } } });
};

export const adjustments: Adjustment[] = [
  dropNonStandardKeywords,
  createProjectBody,
  createOrganizationBody,
  strictAuthConfigBody,
  thirdPartyResolveError,
  functionUploads,
  branchConfigPort,
  cliLogsPath,
  closedSettingsBodies,
  postgrestPoolTimings,
  authNewerFields,
  snippetWrites,
  diskExclusiveMinimum,
  openDatabaseOpenapi,
  projectConfigV2,
  headBeforeGet,
  entitlementConfigOrder,
  answersWithContent,
];
