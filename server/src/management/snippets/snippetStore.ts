// Snippets stage (Management API): a user's SQL snippets stored, read one by one, and listed in
// pages ordered by name or insertion time; the cursor is the id of a page's last snippet, so the
// next page starts after that row (keyset paging, stable under inserts).
import type { Sql } from "../platform/sql";
import { isoColumn } from "../platform/isoColumn";

export type SnippetSortColumn = "name" | "inserted_at";
export type SortOrder = "asc" | "desc";
export type Visibility = "user" | "project" | "org" | "public";

export interface NewSnippet {
  project_ref: string;
  name: string;
  description: string | null;
  visibility: Visibility;
  favorite: boolean;
  sql: string;
}

export interface SnippetQuery {
  projectRef?: string;
  /** The organization an OAuth grant is limited to. */
  organizationSlug?: string;
  afterId?: string;
  limit: number;
  sortBy: SnippetSortColumn;
  order: SortOrder;
}

interface SnippetRow {
  id: string;
  inserted_at: string;
  updated_at: string;
  visibility: Visibility;
  name: string;
  description: string | null;
  favorite: boolean;
  sql: string;
  project_id: string;
  project_name: string;
  owner_number: string;
  owner_username: string;
}

const selectSnippet = `
  select s.id::text, ${isoColumn("s.inserted_at", "inserted_at")}, ${isoColumn("s.updated_at", "updated_at")},
         s.visibility, s.name, s.description, s.favorite, s.sql,
         p.id::text as project_id, p.name as project_name, u.number::text as owner_number, u.username as owner_username
    from platform.snippets s
    join platform.projects p on p.ref = s.project_ref
    join platform.users u on u.id = s.owner_id`;

/** The document's snippet shape as listed (no `content`). */
function toListed(row: SnippetRow) {
  const owner = { id: Number(row.owner_number), username: row.owner_username };
  return {
    id: row.id,
    inserted_at: row.inserted_at,
    updated_at: row.updated_at,
    type: "sql" as const,
    visibility: row.visibility,
    name: row.name,
    description: row.description,
    project: { id: Number(row.project_id), name: row.project_name },
    owner,
    updated_by: owner,
    favorite: row.favorite,
  };
}

/** The document's snippet shape as read on its own: with its `content`. */
function toSnippet(row: SnippetRow) {
  return { ...toListed(row), content: { schema_version: "1.0", sql: row.sql, favorite: row.favorite } };
}

// Fixed texts per sort, so no identifier is ever built from input.
const orderings: Record<SnippetSortColumn, Record<SortOrder, { after: string; orderBy: string }>> = {
  name: {
    asc: { after: "(s.name, s.id) > (c.name, c.id)", orderBy: "s.name asc, s.id asc" },
    desc: { after: "(s.name, s.id) < (c.name, c.id)", orderBy: "s.name desc, s.id desc" },
  },
  inserted_at: {
    asc: { after: "(s.inserted_at, s.id) > (c.inserted_at, c.id)", orderBy: "s.inserted_at asc, s.id asc" },
    desc: { after: "(s.inserted_at, s.id) < (c.inserted_at, c.id)", orderBy: "s.inserted_at desc, s.id desc" },
  },
};

export class SnippetStore {
  constructor(private readonly sql: Sql) {}

  async create(ownerId: string, snippet: NewSnippet) {
    const row = await this.sql.one<{ id: string }>(
      `insert into platform.snippets (owner_id, project_ref, name, description, visibility, favorite, sql)
       values ($1, $2, $3, $4, $5, $6, $7) returning id::text`,
      [ownerId, snippet.project_ref, snippet.name, snippet.description, snippet.visibility, snippet.favorite, snippet.sql],
    );
    return (await this.get(ownerId, row!.id))!;
  }

  async get(ownerId: string, id: string, organizationSlug?: string) {
    const row = await this.sql.one<SnippetRow>(
      `${selectSnippet} where s.owner_id = $1 and s.id = $2 and ($3::text is null or p.organization_slug = $3)`,
      [ownerId, id, organizationSlug ?? null],
    );
    return row && toSnippet(row);
  }

  async remove(ownerId: string, id: string, organizationSlug?: string): Promise<boolean> {
    const rows = await this.sql.rows(
      `delete from platform.snippets s using platform.projects p
        where p.ref = s.project_ref and s.owner_id = $1 and s.id = $2 and ($3::text is null or p.organization_slug = $3)
       returning s.id`,
      [ownerId, id, organizationSlug ?? null],
    );
    return rows.length > 0;
  }

  /** One page, and the cursor of the next one when there may be more; undefined when the cursor
   * names no snippet of this owner. */
  async list(ownerId: string, q: SnippetQuery) {
    const { after, orderBy } = orderings[q.sortBy][q.order];
    const values = [ownerId, q.projectRef ?? null, q.organizationSlug ?? null, q.limit + 1];
    let cursorJoin = "";
    let cursorCondition = "";
    if (q.afterId !== undefined) {
      const known = await this.sql.one("select 1 from platform.snippets where owner_id = $1 and id = $2", [ownerId, q.afterId]);
      if (!known) return undefined;
      values.push(q.afterId);
      cursorJoin = "cross join (select name, inserted_at, id from platform.snippets where id = $5) c";
      cursorCondition = `and ${after}`;
    }
    const rows = await this.sql.rows<SnippetRow>(
      `${selectSnippet} ${cursorJoin}
        where s.owner_id = $1 and ($2::text is null or s.project_ref = $2) and ($3::text is null or p.organization_slug = $3)
        ${cursorCondition}
        order by ${orderBy} limit $4`,
      values,
    );
    const page = rows.slice(0, q.limit);
    return { data: page.map(toListed), cursor: rows.length > q.limit ? page[page.length - 1]!.id : undefined };
  }
}
