// Routes (Management API): the TypeScript types of the project's database, for the schemas named
// in `included_schemas` (default `public`), as the hosted API generates them.
import { typescriptTypes } from "./typescriptTypes";
import { requireProject } from "../http/access";
import { ok, type ApiArea } from "../http/operation";
import { withProjectSql } from "./projectSql";

export const typesArea: ApiArea = {
  "v1-generate-typescript-types": async (call) => {
    const project = await requireProject(call);
    const included = (call.query.included_schemas ?? "public")
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== "");
    const types = await withProjectSql(call, project, "owner", (session) => typescriptTypes(session, included), "Failed to generate types");
    return ok({ types });
  },
};
