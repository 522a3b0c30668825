// Unit tests of the SAML metadata reader's bounds: size and nesting are refused as invalid before
// the parser's recursive steps run, and a fetched document is never quoted in a refusal.
import { describe, expect, it } from "vitest";
import { parseSamlMetadata, samlMetadataLimits } from "./samlMetadata";
import { DomainError } from "../errors/domainError";

function refusal(xml: string, source: "metadata_xml" | "metadata_url"): { kind: string; message: string } {
  try {
    parseSamlMetadata(xml, source);
  } catch (e) {
    if (!(e instanceof DomainError)) throw e;
    return { kind: e.kind, message: e.message };
  }
  throw new Error("accepted");
}

describe("SAML metadata bounds", () => {
  it("refuses a document past the size limit without reading it", () => {
    const xml = `<a>${" ".repeat(samlMetadataLimits.maxBytes)}</a>`;
    expect(refusal(xml, "metadata_xml")).toEqual({ kind: "invalid", message: "metadata_xml: the metadata is larger than 1 MiB" });
  });

  it("refuses nesting past the depth limit, and reads a document just within it", () => {
    const deep = (levels: number) => `${"<a>".repeat(levels)}${"</a>".repeat(levels)}`;
    expect(refusal(deep(samlMetadataLimits.maxDepth + 1), "metadata_xml")).toEqual({ kind: "invalid", message: "metadata_xml: the metadata nests elements deeper than 32 levels" });
    expect(refusal(deep(140_000), "metadata_url")).toEqual({ kind: "invalid", message: "metadata_url: the metadata nests elements deeper than 32 levels" });
    expect(refusal(deep(samlMetadataLimits.maxDepth), "metadata_xml").message).toBe("metadata_xml has no EntityDescriptor element");
  });

  it("quotes the parser's complaint for the tenant's own text only", () => {
    expect(refusal("<internal-secret>", "metadata_xml").message).toMatch(/^metadata_xml is not well-formed XML: .*internal-secret/);
    expect(refusal("<internal-secret>", "metadata_url").message).toBe("metadata_url is not well-formed XML");
  });
});
