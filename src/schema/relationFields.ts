// Schema stage, relationship fields: a table's node type → its relationship fields, by the names
// the node type gives them. The opt-in features name relationships exactly as the node does, so
// they read the names from there instead of deriving them again.

import { resolutionOf, type Relation } from "./resolution";
import type { TableTypes } from "./tableTypes";

export interface RelationField {
  /** The field's name on the node type. */
  readonly name: string;
  readonly relation: Relation;
  /**
   * "parent": the table holds the foreign key (a to-one field leading to the referenced row);
   * "child": the other table holds it (a to-many field, or a reverse one-to-one).
   */
  readonly side: "parent" | "child";
}

/** Whether the relation starts from the foreign key's own columns (a self-reference has both ends). */
export function isLocalSide(relation: Relation): boolean {
  const fk = relation.foreignKey;
  return relation.from.oid === fk.localTableOid && relation.fromColumns === fk.localColumns;
}

/** The node's relationship fields, in the node's field order. */
export function relationFieldsOf(t: TableTypes): RelationField[] {
  const out: RelationField[] = [];
  for (const [name, field] of Object.entries(t.node.getFields())) {
    const r = resolutionOf(field);
    const relation = r?.kind === "relation" ? r.relation : r?.kind === "connection" ? r.relation : null;
    if (relation) out.push({ name, relation, side: isLocalSide(relation) ? "parent" : "child" });
  }
  return out;
}
