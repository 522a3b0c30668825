// Project stage: a project session → the TypeScript types of its database, by the generator the
// hosted API runs. postgres-meta's `generators/typescript` route is `getGeneratorMetadata`
// (postgrest-typegen's `introspect` + `sortGeneratorMetadata`) then postgrest-typegen's
// `generateTypescript` with the default schema `public`; the same calls run here on the
// session's connection (so its timeout and login apply).
import { generateTypescript, introspect, sortGeneratorMetadata } from "@supabase/postgrest-typegen";
import type { ProjectSession } from "../tenants/projectSession";

export async function typescriptTypes(session: ProjectSession, includedSchemas: string[]): Promise<string> {
  // The generator sends its catalog queries all at once; one connection runs one at a time, and
  // pg deprecates queueing them on the client, so they wait their turn here.
  let turn: Promise<unknown> = Promise.resolve();
  const query = (sql: string) => {
    const rows = turn.then(() => session.run(sql));
    turn = rows.catch(() => undefined);
    return rows.then((r) => ({ rows: r }));
  };
  const metadata = sortGeneratorMetadata(await introspect({ query }, { includedSchemas, excludedSchemas: [] }));
  return generateTypescript(metadata, { detectOneToOneRelationships: true, defaultSchema: "public" });
}
