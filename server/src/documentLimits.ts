// HTTP stage: a GraphQL payload and the configured limits → the kind of operation it selects, or
// the limit it exceeds. Parsed with the `graphql` package; measured in time linear in the
// document's size (each fragment measured once, spread at most once per selection set, as the
// spec's CollectFields visits it), so a hostile document costs the server little before refusal.
import {
  Kind,
  parse,
  type DocumentNode,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type OperationTypeNode,
  type SelectionSetNode,
} from "graphql";
import type { DocumentLimits } from "./config";
import type { GraphQLPayload } from "./resolveStatement";
import { LruMap } from "../../src/util/LruMap";

export type DocumentCheck =
  /** `operation` is undefined when the document does not parse or selects no single operation:
   * the resolver reports those with pg_graphql's own messages. */
  | { kind: "accepted"; operation: OperationTypeNode | undefined }
  | { kind: "refused"; message: string };

interface Measure {
  depth: number;
  fields: number;
}

class Measurer {
  private readonly memo = new Map<string, Measure>();
  private readonly visiting = new Set<string>();

  constructor(private readonly fragments: Map<string, FragmentDefinitionNode>) {}

  selectionSet(set: SelectionSetNode): Measure {
    let depth = 0;
    let fields = 0;
    const spread = new Set<string>();
    for (const selection of set.selections) {
      let inner: Measure;
      switch (selection.kind) {
        case Kind.FIELD:
          inner = selection.selectionSet ? this.selectionSet(selection.selectionSet) : { depth: 0, fields: 0 };
          depth = Math.max(depth, inner.depth + 1);
          fields += inner.fields + 1;
          continue;
        case Kind.INLINE_FRAGMENT:
          inner = this.selectionSet(selection.selectionSet);
          break;
        case Kind.FRAGMENT_SPREAD:
          if (spread.has(selection.name.value)) continue;
          spread.add(selection.name.value);
          inner = this.fragment(selection.name.value);
          break;
        default: {
          const never: never = selection;
          return never;
        }
      }
      depth = Math.max(depth, inner.depth);
      fields += inner.fields;
    }
    return { depth, fields };
  }

  /** Unknown or cyclic fragments measure nothing: the resolver refuses those documents. */
  private fragment(name: string): Measure {
    const known = this.memo.get(name);
    if (known) return known;
    const definition = this.fragments.get(name);
    if (!definition || this.visiting.has(name)) return { depth: 0, fields: 0 };
    this.visiting.add(name);
    const measure = this.selectionSet(definition.selectionSet);
    this.visiting.delete(name);
    this.memo.set(name, measure);
    return measure;
  }
}

function selectedOperations(document: DocumentNode, operationName: string | null): OperationDefinitionNode[] {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (operationName === null) return operations;
  return operations.filter((o) => o.name?.value === operationName);
}

// Clients send the same few documents again and again: a verdict is remembered per limits and
// document (bounded in count and in the length of what is kept), so parsing and measuring run
// once per document rather than once per request.
const verdictCacheSize = 1_000;
const longestCachedDocument = 20_000;
const verdicts = new WeakMap<DocumentLimits, LruMap<string, DocumentCheck>>();

export function checkDocument(payload: GraphQLPayload, limits: DocumentLimits): DocumentCheck {
  const length = payload.query.length;
  if (length > limits.maxDocumentLength) {
    return { kind: "refused", message: `The document is ${length} characters long; at most ${limits.maxDocumentLength} are accepted` };
  }
  if (length > longestCachedDocument) return measureDocument(payload, limits);
  let cache = verdicts.get(limits);
  if (!cache) verdicts.set(limits, (cache = new LruMap(verdictCacheSize)));
  // No operation name and an empty one select differently, so they key differently.
  const key = (payload.operationName === null ? "\u0000" : "\u0001" + payload.operationName + "\u0000") + payload.query;
  let verdict = cache.get(key);
  if (!verdict) cache.set(key, (verdict = measureDocument(payload, limits)));
  return verdict;
}

function measureDocument(payload: GraphQLPayload, limits: DocumentLimits): DocumentCheck {
  let document: DocumentNode;
  try {
    document = parse(payload.query, { noLocation: true });
  } catch (e) {
    // The parser recurses per level: a document nested past the stack is refused here.
    if (e instanceof RangeError) return { kind: "refused", message: `The document nests more than ${limits.maxDepth} levels deep` };
    return { kind: "accepted", operation: undefined };
  }
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const measurer = new Measurer(fragments);
  const operations = selectedOperations(document, payload.operationName);
  for (const operation of operations) {
    const { depth, fields } = measurer.selectionSet(operation.selectionSet);
    if (depth > limits.maxDepth) {
      return { kind: "refused", message: `The query nests ${depth} levels deep; at most ${limits.maxDepth} are accepted` };
    }
    if (fields > limits.maxFields) {
      return { kind: "refused", message: `The query selects ${fields} fields (aliases included); at most ${limits.maxFields} are accepted` };
    }
  }
  return { kind: "accepted", operation: operations.length === 1 ? operations[0]!.operation : undefined };
}
