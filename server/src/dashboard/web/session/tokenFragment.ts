// Session stage (pure): the address's fragment → a token to sign in with and the page to open.
// `#token=sbp_…&to=/project/<ref>/sql` signs in and opens that page; any other fragment is a route.

export type Fragment = { kind: "signIn"; token: string; to: string } | { kind: "route" };

/** Only a path of this app: a leading slash, no scheme, no second slash starting a host. */
function safePath(to: string | null): string {
  if (to === null || !to.startsWith("/") || to.startsWith("//") || /[\s\\]/.test(to)) return "/";
  return to;
}

export function readFragment(hash: string): Fragment {
  const text = hash.replace(/^#/, "");
  if (!text.startsWith("token=")) return { kind: "route" };
  const params = new URLSearchParams(text);
  const token = (params.get("token") ?? "").trim();
  if (token === "") return { kind: "route" };
  return { kind: "signIn", token, to: safePath(params.get("to")) };
}
