// Schema stage, feature switches: a table and its schema's comment directives → whether an opt-in
// feature (upserts, nested inserts, filters and ordering across relationships) is on for it.

import type { Catalog, Feature, FeatureSwitches, Table } from "../catalog/model";

/** A table's own setting wins; else its schema's; off when neither names the feature. */
export function featureOn(catalog: Catalog, table: Table, feature: Feature): boolean {
  const own = table.directives.features?.[feature];
  if (own !== undefined) return own;
  return catalog.schemas.find((s) => s.name === table.schema)?.directives.features?.[feature] ?? false;
}

/** Whether any of these directives turns a feature on (so the API may hold the features' types). */
export function anyFeatureOn(switches: Iterable<FeatureSwitches | undefined>): boolean {
  for (const s of switches) if (s !== undefined && Object.values(s).some((on) => on === true)) return true;
  return false;
}
