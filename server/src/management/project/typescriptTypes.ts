// Project stage: a project login → the TypeScript types of its database, made by the generator
// the hosted API runs (`@supabase/postgres-meta`'s route: its generator metadata, then
// `@supabase/postgrest-typegen`'s `generateTypescript` with the default schema `public`).
import { PostgresMeta } from "@supabase/postgres-meta";
import { getGeneratorMetadata } from "@supabase/postgres-meta/dist/lib/generators.js";
import { generateTypescript } from "@supabase/postgrest-typegen";
import { connectionParameters } from "../platform/connectionUrl";
import type { ProjectLogin } from "./projectLogins";

export class TypesError extends Error {}

export async function typescriptTypes(login: ProjectLogin, includedSchemas: string[]): Promise<string> {
  // One connection; getGeneratorMetadata ends the pool it used. Its pool reads a connection
  // string with the WHATWG URL parser, which refuses a socket folder as host: pass the parts.
  const meta = new PostgresMeta({ ...connectionParameters(login.url), options: login.options, max: 1, application_name: "pg_graphql_platform" });
  const { data, error } = await getGeneratorMetadata(meta, { includedSchemas, excludedSchemas: [] });
  if (error) throw Object.assign(new TypesError(error.message), error);
  return generateTypescript(data, { detectOneToOneRelationships: true, defaultSchema: "public" });
}
