/**
 * Sessions that ended before their time: sign-out, "revoke other sessions", an account
 * deleted or suspended. Every process keeps a short cache of resolved sessions (the polling
 * hot path), so an ending is signalled to all of them: in-process on one machine, Redis
 * pub/sub in scale-out. Only session and user ids travel, never a session token.
 */
export interface SessionRevocation {
  /** These sessions (their ids, not their tokens). */
  sessionIds?: string[];
  /** Every session of these users. */
  userIds?: string[];
}

export type SessionRevocationListener = (revocation: SessionRevocation) => void;

export interface SessionRevocationChannel {
  /** Tells every process (this one included). */
  publish(revocation: SessionRevocation): Promise<void>;
  /** Calls `listener` on each revocation; returns the unsubscribe function. */
  subscribe(listener: SessionRevocationListener): () => void;
  /** Resolves once revocations are being received. */
  ready(): Promise<void>;
  close(): Promise<void>;
}
