import { describe, expect, it } from "vitest";
import errors from "../../../messages/en/errors.json";
import { TaskReasons } from "../task-lifecycle";
import {
  ENGINE_FAILURE_CODES,
  errorRate,
  failureKind,
  OTHER_FAILURE_CODES,
  REFUSED_INPUT_CODES,
} from "./failures";

/** Every failure code a user can be shown: `task_<code>` and `input_<code>` messages. */
const messageCodes = Object.keys(errors.errors.server)
  .map((k) => /^(?:task|input)_(.+)$/.exec(k)?.[1])
  .filter((c): c is string => !!c);

describe("failure kinds for the console's error rates", () => {
  // Every provider code has its task_ message (engine/providers/codes.ts), so it is in messageCodes.
  it("sorts every failure code with a message, and every lifecycle code, exactly once", () => {
    const sorted = [...REFUSED_INPUT_CODES, ...OTHER_FAILURE_CODES, ...ENGINE_FAILURE_CODES];
    expect(new Set(sorted).size).toBe(sorted.length);
    const known = [...messageCodes, ...Object.values(TaskReasons).map((r) => r.code)];
    expect(messageCodes.length).toBeGreaterThan(20);
    expect(known.filter((c) => !sorted.includes(c as never))).toEqual([]);
  });

  it("an input refused by the rules or a provider's filter is not an engine error", () => {
    expect(failureKind("noFace")).toBe("refused");
    expect(failureKind("providerSafetyBlocked")).toBe("refused");
    expect(failureKind("nsfw")).toBe("refused");
    expect(failureKind("accountSuspended")).toBe("other");
    expect(failureKind("providerBusy")).toBe("engine");
    expect(failureKind("timeout")).toBe("engine");
    // An unknown or missing code is the engine's: never hide an error.
    expect(failureKind("somethingNew")).toBe("engine");
    expect(failureKind(null)).toBe("engine");
  });

  it("the rate is engine errors over the finished tasks minus refused and server-ended ones", () => {
    // 10 finished: 6 succeeded, 1 engine error, 3 refused inputs -> 1 / 7.
    expect(errorRate(10, 1, 3)).toBeCloseTo(1 / 7);
    expect(errorRate(4, 0, 4)).toBeNull();
    expect(errorRate(0, 0, 0)).toBeNull();
  });
});
