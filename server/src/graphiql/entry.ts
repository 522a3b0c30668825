// Browser bundle entry (built by server/build.mjs): the page's JSON settings → a mounted GraphiQL
// whose fetcher sends the apiKey header (shown, editable, in the headers editor).
import { createRoot } from "react-dom/client";
import { graphiqlElement } from "./graphiqlElement";

interface PageConfig {
  endpoint: string;
  headers: Record<string, string>;
  defaultQuery: string;
}

// The project's tsconfig has no DOM library; these are the only parts of it this file touches.
interface MinimalDocument {
  getElementById(id: string): { textContent: string | null } | null;
}

const doc = (globalThis as unknown as { document: MinimalDocument }).document;
const config = JSON.parse(doc.getElementById("graphiql-config")?.textContent ?? "{}") as PageConfig;
const container = doc.getElementById("graphiql");
if (container) {
  const endpoint = new URL(config.endpoint, (globalThis as unknown as { location: { href: string } }).location.href).href;
  createRoot(container as unknown as Parameters<typeof createRoot>[0]).render(
    graphiqlElement({ endpoint, headers: config.headers, defaultQuery: config.defaultQuery }),
  );
}
