// SDL printing, also a debugging entry: `PRINT_SCHEMA_SQL=setup.sql npx vitest run
// src/schema/printSchema.test.ts` builds a database from the file and prints its API as SDL.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../../test/harness/db";
import { printApiSchema } from "./printSchema";
import { reflectSchema } from "../../test/harness/reflectSchema";

const setupFile = process.env["PRINT_SCHEMA_SQL"];
const DEFAULT_SETUP = `
  comment on schema public is e'@graphql({"inflect_names": true})';
  create table account(id serial primary key, email text not null);
  create table blog(id serial primary key, owner_id int not null references account(id), title text);
`;

let db: TestDatabase;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await db.drop();
});

it("prints the API of a database as SDL", async () => {
  const client = await db.connect();
  try {
    await client.query(setupFile ? readFileSync(setupFile, "utf8") : DEFAULT_SETUP);
    const sdl = printApiSchema(await reflectSchema(client));
    if (setupFile) console.log(sdl);
    else {
      expect(sdl).toContain("type Blog implements Node");
      expect(sdl).toMatch(/owner: Account!/);
      expect(sdl).toMatch(/blogCollection\(/);
    }
  } finally {
    await client.end();
  }
});
