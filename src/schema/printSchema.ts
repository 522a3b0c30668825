// Schema stage, debugging aid: ApiSchema → SDL text (types in name order, as introspection lists them).

import { printSchema } from "graphql";
import type { ApiSchema } from "./apiSchema";

export function printApiSchema(api: ApiSchema): string {
  return printSchema(api.graphql);
}
