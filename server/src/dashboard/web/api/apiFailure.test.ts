import { describe, expect, it } from "vitest";
import { ApiFailure, describeFailure, failureDetail } from "./apiFailure";

describe("failureDetail", () => {
  it("takes the API's message, else the body's text, else the status text", () => {
    expect(failureDetail({ message: "Project not found" }, "Forbidden")).toBe("Project not found");
    expect(failureDetail("plain words\n", "Bad Gateway")).toBe("plain words");
    expect(failureDetail(undefined, "Bad Gateway")).toBe("Bad Gateway");
    expect(failureDetail({ error: 1 }, "")).toBe("no message");
  });
});

describe("describeFailure", () => {
  it("names each kind of failure", () => {
    expect(describeFailure(new ApiFailure(401, "Invalid token"), 0)).toEqual({ title: "The token was refused (401)", detail: "Invalid token", signInAgain: true });
    expect(describeFailure(new ApiFailure(403, "no"), 0).title).toBe("Not allowed (403)");
    expect(describeFailure(new ApiFailure(503, "down"), 0).title).toBe("The server failed (503)");
    expect(describeFailure(new ApiFailure(400, "bad"), 0).title).toBe("Refused (400)");
    expect(describeFailure(new ApiFailure(0, "Failed to fetch"), 0).title).toBe("The server did not answer");
    expect(describeFailure(new Error("boom"), 0)).toMatchObject({ title: "Something failed in the page", detail: "boom" });
  });

  it("counts down a 429's retry time", () => {
    const failure = new ApiFailure(429, "Rate limit exceeded", 30_000);
    expect(describeFailure(failure, 10_000).title).toBe("Too many calls (429): retry in 20 s");
    expect(describeFailure(failure, 29_500).title).toBe("Too many calls (429): retry in 1 s");
    expect(describeFailure(failure, 31_000).title).toBe("Too many calls (429): retry now");
    expect(describeFailure(new ApiFailure(429, "x"), 0).title).toBe("Too many calls (429): retry later");
  });
});
