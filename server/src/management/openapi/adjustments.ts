// OpenAPI stage: where this server's contract differs from the published document, each
// difference is one function that edits the loaded document (never the file).
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

/** Settings bodies: an unknown (misspelt) setting is refused rather than silently ignored. */
const closedSettingsBodies: Adjustment = (doc) => {
  for (const name of ["V1UpdatePostgrestConfigBody"]) {
    const body = doc.components.schemas[name];
    if (body) body.additionalProperties = false;
  }
};

export const adjustments: Adjustment[] = [dropNonStandardKeywords, createProjectBody, createOrganizationBody, closedSettingsBodies];
