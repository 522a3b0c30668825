// Schema stage, debugging aid: ApiSchema → SDL text, types in the order the schema collected them.

import { printSchema } from "graphql";
import type { ApiSchema } from "./apiSchema";

export function printApiSchema(api: ApiSchema): string {
  return printSchema(api.graphql);
}
