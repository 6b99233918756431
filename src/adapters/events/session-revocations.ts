import { z } from "zod";
import { InProcessBroadcast, RedisBroadcast } from "../broadcast";
import type { SessionRevocation, SessionRevocationChannel } from "@/core/ports/session-revocations";

const ids = z.array(z.string().min(1).max(256)).max(10_000).optional();
const message = z.object({ sessionIds: ids, userIds: ids });

/** Within one process. */
export class InProcessSessionRevocations
  extends InProcessBroadcast<SessionRevocation>
  implements SessionRevocationChannel {}

/**
 * Redis pub/sub on `${namespace}:sessions-revoked` (the namespace is QUEUE_NAME, as the
 * settings channel's). A message that is not a well-formed revocation is dropped.
 */
export class RedisSessionRevocations
  extends RedisBroadcast<SessionRevocation>
  implements SessionRevocationChannel
{
  constructor(url: string, namespace: string, onError?: (err: Error) => void) {
    super(
      url,
      `${namespace}:sessions-revoked`,
      {
        encode: (r) => JSON.stringify(r),
        decode: (raw) => {
          try {
            const r = message.safeParse(JSON.parse(raw));
            return r.success ? r.data : null;
          } catch {
            return null;
          }
        },
      },
      onError,
    );
  }
}
