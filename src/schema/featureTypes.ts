// Schema stage, the opt-in features' types: every exposed table's types and relationships → the
// fields and arguments the features add where their switches are on, and the types they need.
// Names are claimed once every table holds its own, in table order: a feature type whose name is
// taken is left out, with the fields that would use it, rather than another table's types.

import type { GraphQLFieldConfigArgumentMap, GraphQLInputFieldConfigMap, GraphQLInputObjectType, GraphQLNamedType } from "graphql";
import type { Catalog, Feature } from "../catalog/model";
import { featureOn } from "./features";
import { nestable, nestedInsertFields, nestedInsertType, nestedKind, type NestedKind } from "./nestedInsertTypes";
import { isLocalSide, relationFieldsOf } from "./relationFields";
import { relationFilterFields, relationFilterType } from "./relationFilterTypes";
import { relationOrderByFields } from "./relationOrderTypes";
import type { Relation } from "./resolution";
import type { TableExtras, TableTypes } from "./tableTypes";
import { UPSERT_TYPE_SUFFIXES, upsertTypes, type UpsertTypes } from "./upsertTypes";

/** The type names the features may give a table, as suffixes of its base name. */
export const FEATURE_TYPE_SUFFIXES = [...UPSERT_TYPE_SUFFIXES, "RelationFilter", "ObjRelInsertInput", "ArrRelInsertInput"];

export interface FeatureBuild {
  readonly catalog: Catalog;
  readonly tables: ReadonlyMap<number, TableTypes>;
  readonly relations: ReadonlyMap<number, readonly Relation[]>;
  /** Takes every name for `owner`, or none of them when one is held by someone else. */
  claim(names: readonly string[], owner: string): boolean;
}

type FeatureFields = Pick<TableExtras, "filterFields" | "orderByFields" | "insertFields">;

export class FeatureTypes implements FeatureFields {
  /** Every type made, for the schema's type list. */
  readonly all: GraphQLNamedType[] = [];
  private readonly upserts = new Map<number, UpsertTypes>();
  private readonly relationFilters = new Map<number, GraphQLInputObjectType | null>();
  private readonly wrappers = new Map<string, GraphQLInputObjectType | null>();

  constructor(private readonly b: FeatureBuild) {
    for (const t of b.tables.values()) {
      if (this.on(t, "upsert")) this.claimUpsert(t);
      const relations = b.relations.get(t.table.oid) ?? [];
      if (this.on(t, "relationFilters")) {
        for (const r of relations) if (r.cardinality === "toMany") this.relationFilterOf(r.to.oid);
      }
      if (this.on(t, "nestedMutations") && t.insertInput !== null) {
        for (const relation of relations) {
          const field = { name: "", relation, side: isLocalSide(relation) ? ("parent" as const) : ("child" as const) };
          if (nestable(field, b.tables.get(relation.to.oid))) this.wrapperOf(relation.to.oid, nestedKind(field));
        }
      }
    }
  }

  private on(t: TableTypes, feature: Feature): boolean {
    return featureOn(this.b.catalog, t.table, feature);
  }

  private claimUpsert(t: TableTypes): void {
    const types = upsertTypes(t);
    if (types === null) return;
    const named = [types.onConflict, types.uniqueConstraint, types.updateField];
    if (!this.b.claim(named.map((x) => x.name), `upsert:${t.table.oid}`)) return;
    this.upserts.set(t.table.oid, types);
    this.all.push(...named);
  }

  private relationFilterOf(oid: number): GraphQLInputObjectType | null {
    if (!this.relationFilters.has(oid)) {
      const target = this.b.tables.get(oid)!;
      const type = relationFilterType(target);
      const usable = this.b.claim([type.name], `relationFilter:${oid}`);
      this.relationFilters.set(oid, usable ? type : null);
      if (usable) this.all.push(type);
    }
    return this.relationFilters.get(oid) ?? null;
  }

  private wrapperOf(oid: number, kind: NestedKind): GraphQLInputObjectType | null {
    const key = `${kind}:${oid}`;
    if (!this.wrappers.has(key)) {
      const type = nestedInsertType(this.b.tables.get(oid)!, kind);
      const usable = this.b.claim([type.name], key);
      this.wrappers.set(key, usable ? type : null);
      if (usable) this.all.push(type);
    }
    return this.wrappers.get(key) ?? null;
  }

  private readonly table = (oid: number): TableTypes | undefined => this.b.tables.get(oid);

  filterFields(t: TableTypes): GraphQLInputFieldConfigMap {
    if (!this.on(t, "relationFilters")) return {};
    return relationFilterFields(relationFieldsOf(t), {
      table: this.table,
      relationFilter: (oid) => this.relationFilters.get(oid) ?? null,
    });
  }

  orderByFields(t: TableTypes): GraphQLInputFieldConfigMap {
    if (!this.on(t, "relationOrderBy")) return {};
    return relationOrderByFields(relationFieldsOf(t), this.table);
  }

  insertFields(t: TableTypes): GraphQLInputFieldConfigMap {
    if (!this.on(t, "nestedMutations")) return {};
    return nestedInsertFields(relationFieldsOf(t), {
      table: this.table,
      wrapper: (oid, kind) => this.wrappers.get(`${kind}:${oid}`) ?? null,
    });
  }

  /** The insert field's arguments beyond `objects`. */
  insertArgs(t: TableTypes): GraphQLFieldConfigArgumentMap {
    const types = this.upserts.get(t.table.oid);
    if (types === undefined) return {};
    return {
      onConflict: {
        type: types.onConflict,
        description: "Updates (or leaves as they are) existing records that conflict with inserted ones, instead of failing",
      },
    };
  }
}
