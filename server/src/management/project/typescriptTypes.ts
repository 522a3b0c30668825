// Project stage: a project session → the TypeScript types of its database, by the generator the
// hosted API runs. postgres-meta's `generators/typescript` route is `getGeneratorMetadata`
// (postgrest-typegen's `introspect` + `sortGeneratorMetadata`) then postgrest-typegen's
// `generateTypescript` with the default schema `public`; the same calls run here on the
// session's connection (so its timeout and login apply).
import { generateTypescript, introspect, sortGeneratorMetadata } from "@supabase/postgrest-typegen";
import type { ProjectSession } from "./projectSession";

export async function typescriptTypes(session: ProjectSession, includedSchemas: string[]): Promise<string> {
  const metadata = sortGeneratorMetadata(await introspect({ query: async (sql: string) => ({ rows: await session.run(sql) }) }, { includedSchemas, excludedSchemas: [] }));
  return generateTypescript(metadata, { detectOneToOneRelationships: true, defaultSchema: "public" });
}
