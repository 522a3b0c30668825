// Browser stage: an endpoint, the headers to preset and a first query → the GraphiQL element that
// both the data API's own page (entry.ts) and the dashboard's project page mount. Requests go
// through the toolkit's fetcher with the headers from GraphiQL's headers editor, which stays
// editable (an `Authorization: Bearer <JWT>` can be added or changed there).
import { createElement } from "react";
import { GraphiQL } from "graphiql";
import { createGraphiQLFetcher } from "@graphiql/toolkit";

export interface GraphiqlSettings {
  /** An absolute URL. */
  endpoint: string;
  headers: Record<string, string>;
  defaultQuery: string;
}

export function graphiqlElement(settings: GraphiqlSettings) {
  return createElement(GraphiQL, {
    fetcher: createGraphiQLFetcher({ url: settings.endpoint }),
    headers: JSON.stringify(settings.headers, null, 2),
    shouldPersistHeaders: false,
    defaultQuery: settings.defaultQuery,
    defaultEditorToolsVisibility: "headers",
  });
}
