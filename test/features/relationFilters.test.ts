// Filters across relationships (opt-in): to-one relationships take the related table's filter,
// to-many ones `some`/`every`/`none`; each answer is checked against plain SQL. Also composite,
// self-referencing and doubled foreign keys, row level security on the related table, and what a
// role that cannot read the related table gets.
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDatabase } from "../harness/db";
import { data, databaseWithExtension, edgeIds, failure, loginRole, resolve, sqlIds } from "./support";

describe("filters across relationships", () => {
  let db: TestDatabase;
  let admin: pg.Client;
  let reader: pg.Client;

  beforeAll(async () => {
    ({ db, client: admin } = await databaseWithExtension(`
      comment on schema public is '@graphql({"inflect_names": true, "introspection": true, "relation_filters": true})';
      create table team(id int primary key, name text not null);
      create table person(
        id int primary key,
        name text not null,
        team_id int references team(id),
        mentor_id int references person(id)
      );
      create table task(
        id int primary key,
        title text not null,
        done bool,
        owner_id int references person(id),
        reviewer_id int references person(id)
      );
      comment on constraint task_reviewer_id_fkey on task is '@graphql({"local_name": "reviewedTasks"})';
      create index on task(owner_id);
      create index on task(reviewer_id);
      create table region(country text, code text, name text not null, primary key (country, code));
      create table office(id int primary key, country text, code text, foreign key (country, code) references region(country, code));
      insert into team values (1, 'red'), (2, 'blue'), (3, 'empty');
      insert into person values (1, 'Ann', 1, null), (2, 'Bob', 1, 1), (3, 'Cy', 2, 1), (4, 'Dee', null, 3);
      insert into task values
        (1, 'write', true, 1, 2), (2, 'read', false, 1, 3), (3, 'plan', true, 2, 1),
        (4, 'test', null, 3, null), (5, 'ship', true, null, 1), (6, 'rest', true, 4, 4);
      insert into region values ('fr', 'par', 'Paris'), ('fr', 'lyo', 'Lyon'), ('de', 'ber', 'Berlin');
      insert into office values (1, 'fr', 'par'), (2, 'fr', 'lyo'), (3, 'de', 'ber'), (4, null, null), (5, 'fr', 'par');
      ${loginRole("feat_rf_reader")}
      grant select on person, task, office, region to feat_rf_reader;
      alter table task enable row level security;
      create policy done_only on task for select to feat_rf_reader using (done is true);
    `));
    reader = await db.connect({ user: "feat_rf_reader" });
  });
  afterAll(async () => db.drop());

  const tasks = async (filter: string, client = admin) => edgeIds((await data(client, `{ taskCollection(filter: ${filter}) { edges { node { id } } } }`)).taskCollection);
  const people = async (filter: string, client = admin) => edgeIds((await data(client, `{ personCollection(filter: ${filter}) { edges { node { id } } } }`)).personCollection);

  it("matches a to-one relationship's row when it exists and matches", async () => {
    expect(await tasks(`{owner: {name: {eq: "Ann"}}}`)).toEqual(
      await sqlIds(admin, "select id from task t where exists (select 1 from person p where p.id = t.owner_id and p.name = 'Ann') order by id"),
    );
    // An empty filter on the relationship: the related row exists.
    expect(await tasks(`{owner: {}}`)).toEqual(await sqlIds(admin, "select id from task where owner_id is not null order by id"));
    // Two keys to one table are two relationships.
    expect(await tasks(`{owner: {name: {eq: "Ann"}}, reviewer: {name: {eq: "Cy"}}}`)).toEqual([2]);
  });

  it("answers some, every and none over a to-many relationship", async () => {
    const cases: [string, string][] = [
      [`{taskCollection: {some: {done: {eq: true}}}}`, "exists (select 1 from task t where t.owner_id = p.id and t.done = true)"],
      [`{taskCollection: {every: {done: {eq: true}}}}`, "not exists (select 1 from task t where t.owner_id = p.id and (t.done = true) is not true)"],
      [`{taskCollection: {none: {done: {eq: true}}}}`, "not exists (select 1 from task t where t.owner_id = p.id and t.done = true)"],
      [`{reviewedTasks: {some: {title: {startsWith: "s"}}}}`, "exists (select 1 from task t where t.reviewer_id = p.id and t.title like 's%')"],
      [`{taskCollection: {some: {done: {eq: true}}, none: {done: {eq: false}}}}`,
        "exists (select 1 from task t where t.owner_id = p.id and t.done) and not exists (select 1 from task t where t.owner_id = p.id and t.done = false)"],
    ];
    for (const [filter, sql] of cases) {
      expect(await people(filter), filter).toEqual(await sqlIds(admin, `select id from person p where ${sql} order by id`));
    }
    // `every` holds without related rows, and fails on a row the filter leaves null (Cy's one
    // task has done = null).
    expect(await people(`{taskCollection: {every: {done: {eq: true}}}}`)).toEqual([2, 4]);
  });

  it("nests, and combines with and, or, not and columns", async () => {
    // Teams with a member who owns an unfinished task.
    const teams = edgeIds((await data(admin, `{ teamCollection(filter: {personCollection: {some: {taskCollection: {some: {done: {eq: false}}}}}}) { edges { node { id } } } }`)).teamCollection);
    expect(teams).toEqual([1]);
    expect(await tasks(`{or: [{owner: {team: {name: {eq: "blue"}}}}, {reviewer: {name: {eq: "Dee"}}}], not: {done: {is: NULL}}}`)).toEqual(
      await sqlIds(admin, `select t.id from task t
        left join person o on o.id = t.owner_id left join team ot on ot.id = o.team_id
        left join person r on r.id = t.reviewer_id
        where (ot.name = 'blue' or r.name = 'Dee') and t.done is not null order by t.id`),
    );
    expect(await tasks(`{title: {neq: "write"}, not: {owner: {name: {eq: "Ann"}}}}`)).toEqual(
      await sqlIds(admin, "select id from task t where title <> 'write' and not exists (select 1 from person p where p.id = t.owner_id and p.name = 'Ann') order by id"),
    );
  });

  it("takes a nodeId on the related side", async () => {
    const bob = (await data(admin, `{ personCollection(filter: {id: {eq: 2}}) { edges { node { nodeId } } } }`)).personCollection.edges[0].node.nodeId;
    expect(await tasks(`{owner: {nodeId: {eq: "${bob}"}}}`)).toEqual([3]);
  });

  it("follows self-referencing and composite keys", async () => {
    expect(await people(`{mentor: {name: {eq: "Ann"}}}`)).toEqual([2, 3]);
    expect(await people(`{personCollection: {some: {}}}`)).toEqual(await sqlIds(admin, "select id from person p where exists (select 1 from person c where c.mentor_id = p.id) order by id"));
    const offices = edgeIds((await data(admin, `{ officeCollection(filter: {region: {name: {eq: "Paris"}}}) { edges { node { id } } } }`)).officeCollection);
    expect(offices).toEqual([1, 5]);
    const regions = (await data(admin, `{ regionCollection(filter: {officeCollection: {none: {}}}) { edges { node { code } } } }`)).regionCollection;
    expect(regions.edges).toEqual([]);
  });

  it("filters the rows an update or delete touches", async () => {
    const reviewedByRed = await sqlIds(admin, "select t.id from task t join person p on p.id = t.reviewer_id join team m on m.id = p.team_id where m.name = 'red' order by t.id");
    expect(reviewedByRed).toEqual([1, 3, 5]);
    await admin.query("begin");
    try {
      const answer = await data(admin, `mutation { updateTaskCollection(set: {done: false}, filter: {owner: {name: {eq: "Ann"}}}, atMost: 10) { affectedCount records { id } } }`);
      expect(answer.updateTaskCollection.affectedCount).toBe(2);
      const deleted = await data(admin, `mutation { deleteFromTaskCollection(filter: {reviewer: {team: {name: {eq: "red"}}}}, atMost: 10) { records { id } } }`);
      expect(deleted.deleteFromTaskCollection.records.map((r: { id: number }) => r.id).sort()).toEqual([1, 3, 5]);
    } finally {
      await admin.query("rollback");
    }
  });

  it("sees related rows as the role does: a row it cannot see never makes a match", async () => {
    // The reader sees finished tasks only: Cy's unfinished one is invisible, so every task it
    // sees of Cy's matches (there are none) and none of Ann's is unfinished.
    expect(await people(`{taskCollection: {some: {}}}`, reader)).toEqual([1, 2, 4]);
    expect(await people(`{taskCollection: {every: {done: {eq: true}}}}`, reader)).toEqual([1, 2, 3, 4]);
    expect(await people(`{taskCollection: {some: {done: {eq: false}}}}`, reader)).toEqual([]);
  });

  it("offers no relationship to a table the role cannot read", async () => {
    const fields = await data(reader, `{ __type(name: "PersonFilter") { inputFields { name } } }`);
    const names = fields.__type.inputFields.map((f: { name: string }) => f.name);
    expect(names).toContain("taskCollection");
    expect(names).not.toContain("team");
    const answer = await resolve(reader, `{ personCollection(filter: {team: {name: {eq: "red"}}}) { edges { node { id } } } }`);
    expect(failure(answer)).toEqual(['Input for type PersonFilter contains extra keys ["team"]']);
  });
});
