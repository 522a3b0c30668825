// HTTP stage: the endpoint's address and the anon key → the GraphiQL page's HTML. The page loads
// only assets this server bundles (no CDN) and reads its settings from an inert JSON block.

export interface GraphiqlSettings {
  endpoint: string;
  apiKey: string;
  assetsPath: string;
  defaultQuery: string;
}

// `<` is escaped so no value can close the script element it sits in.
function inertJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c");
}

export function graphiqlPage(settings: GraphiqlSettings): string {
  const config = { endpoint: settings.endpoint, headers: { apiKey: settings.apiKey }, defaultQuery: settings.defaultQuery };
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>GraphiQL · pg_graphql</title>
    <link rel="stylesheet" href="${settings.assetsPath}/graphiql.css">
    <style>html, body, #graphiql { height: 100%; margin: 0; }</style>
  </head>
  <body>
    <div id="graphiql">Loading GraphiQL…</div>
    <script id="graphiql-config" type="application/json">${inertJson(config)}</script>
    <script src="${settings.assetsPath}/graphiql.js"></script>
  </body>
</html>
`;
}
