// Browser entry (built by server/build.mjs): a `#token=…[&to=…]` fragment signs in and is taken
// out of the address at once (history.replaceState, before anything renders or is fetched), then
// the app mounts. A new token or a sign-out drops every answer kept for the previous one.
import { createRoot } from "react-dom/client";
import "./dashboard.css";
import { App } from "./app/App";
import { queryClient } from "./api/queries";
import { readFragment } from "./session/tokenFragment";
import { onTokenChange, signIn } from "./session/tokenStore";

function takeTokenFromAddress(): void {
  const fragment = readFragment(location.hash);
  if (fragment.kind !== "signIn") return;
  history.replaceState(null, "", `${location.pathname}${location.search}#${fragment.to}`);
  signIn(fragment.token);
}

onTokenChange(() => queryClient.clear());
takeTokenFromAddress();
// Registered before the router's own listener, so the router never sees the token.
addEventListener("hashchange", takeTokenFromAddress);
createRoot(document.getElementById("root")!).render(<App />);
