// Property test support: how often each feature was generated, with the minimum a run must reach
// (so a generator that stopped producing a feature cannot pass unnoticed).
import { DIRECTIONS, OPS_BY_TYPE, PAGE_INFO_FIELDS, type ConnectionModel, type FilterModel, type NodeSelection } from "./queryModel";

const OPERATORS = [...new Set(Object.values(OPS_BY_TYPE).flat())];

/** Features every run must produce, with their minimum share of the cases. */
const REQUIRED: Record<string, number> = {
  ...Object.fromEntries(OPERATORS.map((op) => [`op:${op}`, 0.01])),
  ...Object.fromEntries(DIRECTIONS.map((d) => [`dir:${d}`, 0.02])),
  "logic:and": 0.01,
  "logic:or": 0.01,
  "logic:not": 0.01,
  "logic:nested": 0.01,
  "filter:empty": 0.005,
  "filter:nodeId": 0.005,
  "order:multi": 0.02,
  "args:none": 0.03,
  "args:first": 0.03,
  "args:last": 0.03,
  "args:first+offset": 0.02,
  "args:after": 0.005,
  "args:first+after": 0.005,
  "args:last+before": 0.005,
  "args:before": 0.005,
  "cursor:unmatchedRow": 0.005,
  "cursor:short": 0.005,
  "fk:snake": 0.005,
  "fk:camel": 0.005,
  "fk:plain": 0.005,
  "depth:1": 0.05,
  "depth:2": 0.01,
  "rel:toOne": 0.02,
  "rel:many": 0.02,
  "rel:oneToOne": 0.002,
  "sel:totalCount": 0.05,
  "sel:pageInfo": 0.05,
  "sel:pageInfoOnly": 0.005,
  "sel:pageInfoSubset": 0.02,
  "agg:count": 0.01,
  "agg:sum": 0.01,
  "agg:avg": 0.01,
  "agg:min": 0.01,
  "agg:max": 0.01,
  "walk:forward": 0.02,
  "walk:backward": 0.02,
  "node:lookup": 0.01,
  "mut:update": 0.01,
  "mut:delete": 0.01,
  "mut:insert": 0.01,
  "via:extension": 0.1,
  "inflect:on": 0.05,
  "inflect:off": 0.05,
};

export class Coverage {
  readonly counts = new Map<string, number>();

  add(feature: string): void {
    this.counts.set(feature, (this.counts.get(feature) ?? 0) + 1);
  }

  private filter(f: FilterModel, depth: number): void {
    for (const cf of f.columns) {
      this.add(`op:${cf.op}`);
      this.add(`type:${cf.column.type}`);
    }
    if (depth >= 2) this.add("logic:nested");
    if (f.nodeId) this.add("filter:nodeId");
    const parts = f.columns.length + (f.and?.length ?? 0) + (f.or?.length ?? 0) + (f.not ? 1 : 0);
    if (parts === 0) this.add("filter:empty");
    for (const [key, items] of [["and", f.and], ["or", f.or]] as const) {
      if (!items) continue;
      this.add(`logic:${key}`);
      for (const x of items) this.filter(x, depth + 1);
    }
    if (f.not) {
      this.add("logic:not");
      this.filter(f.not, depth + 1);
    }
  }

  connection(c: ConnectionModel, depth: number): void {
    this.add(`depth:${depth}`);
    if (c.filter) this.filter(c.filter, 0);
    for (const o of c.orderBy) this.add(`dir:${o.direction}`);
    if (c.orderBy.length > 1) this.add("order:multi");
    const p = c.paging;
    const args = [p.first !== undefined && "first", p.last !== undefined && "last", p.offset !== undefined && "offset", p.after !== undefined && "after", p.before !== undefined && "before"];
    const combo = args.filter(Boolean).join("+") || "none";
    this.add(`args:${combo}`);
    if (p.unfilteredCursor) this.add("cursor:unmatchedRow");
    if (p.cursorLength !== undefined) this.add("cursor:short");
    if (combo === "first+offset+after") this.add("args:first+after");
    if (c.totalCount) this.add("sel:totalCount");
    if (c.pageInfo.length > 0) {
      this.add(c.edges || c.totalCount || c.aggregate ? "sel:pageInfo" : "sel:pageInfoOnly");
      if (c.pageInfo.length < PAGE_INFO_FIELDS.length) this.add("sel:pageInfoSubset");
    }
    if (c.aggregate?.count) this.add("agg:count");
    for (const o of c.aggregate?.ops ?? []) this.add(`agg:${o.op}`);
    if (c.edges) this.node(c.edges.node, depth);
  }

  private node(n: NodeSelection, depth: number): void {
    for (const r of n.relations) {
      this.add(`rel:${r.kind}`);
      // Which of the naming rules named a to-one field: a column ending in `_id`, in `Id`, or neither.
      if (r.kind === "toOne" && r.localColumns.length === 1) {
        const column = r.localColumns[0]!;
        this.add(column.endsWith("_id") ? "fk:snake" : column.endsWith("Id") ? "fk:camel" : "fk:plain");
      }
      if (r.kind === "many") this.connection(r.connection, depth + 1);
      else {
        this.add(`depth:${depth + 1}`);
        this.node(r.selection, depth + 1);
      }
    }
  }

  /** Features generated less often than their minimum for `cases` cases. */
  shortfalls(cases: number): string[] {
    return Object.entries(REQUIRED)
      .filter(([feature, share]) => (this.counts.get(feature) ?? 0) < Math.max(1, Math.floor(cases * share)))
      .map(([feature, share]) => `${feature}: ${this.counts.get(feature) ?? 0} < ${Math.max(1, Math.floor(cases * share))}`);
  }

  report(): string {
    return [...this.counts.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => `${k}=${v}`)
      .join(" ");
  }
}
