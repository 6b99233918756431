import { EventEmitter } from "node:events";
import { Redis } from "ioredis";

/**
 * A message every process hears, this one included: in-process on one machine, Redis pub/sub
 * in scale-out (one subscriber connection per process, fanned out locally). The settings
 * channel and session revocations are both one of these.
 */
export interface Broadcast<T> {
  /** Tells every process (this one included). */
  publish(message: T): Promise<void>;
  /** Calls `listener` on each message; returns the unsubscribe function. */
  subscribe(listener: (message: T) => void): () => void;
  /** Resolves once messages are being received. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

export class InProcessBroadcast<T> implements Broadcast<T> {
  private readonly emitter = new EventEmitter().setMaxListeners(0);

  async publish(message: T): Promise<void> {
    this.emitter.emit("message", message);
  }

  subscribe(listener: (message: T) => void): () => void {
    this.emitter.on("message", listener);
    return () => this.emitter.off("message", listener);
  }

  async ready(): Promise<void> {}

  async close(): Promise<void> {
    this.emitter.removeAllListeners();
  }
}

/** How long `publish` waits to hear its own message back before returning anyway. */
const ECHO_WAIT_MS = 2_000;

/**
 * Redis pub/sub on one channel. Messages travel as text: `encode` writes one, `decode` reads
 * one back and answers null for anything malformed (dropped: the channel is not trusted input).
 *
 * `publish` resolves once this process's own subscriber has heard the message (or after
 * ECHO_WAIT_MS). Redis writes a message to every subscriber in the same pass, so by then the
 * other processes have it on their sockets too: a request they receive after ours answered
 * (a signed-out session used again, say) is handled after the message, not before.
 */
export class RedisBroadcast<T> implements Broadcast<T> {
  private readonly pub: Redis;
  private readonly sub: Redis;
  private readonly local = new InProcessBroadcast<T>();
  private readonly subscribed: Promise<unknown>;
  /** Publishes waiting for their echo, by the text sent. */
  private readonly echoes = new Map<string, Array<() => void>>();

  constructor(
    url: string,
    private readonly channel: string,
    private readonly codec: { encode(message: T): string; decode(raw: string): T | null },
    onError: (err: Error) => void = () => {},
  ) {
    this.pub = new Redis(url, { maxRetriesPerRequest: null });
    this.sub = new Redis(url, { maxRetriesPerRequest: null });
    this.pub.on("error", onError);
    this.sub.on("error", onError);
    this.sub.on("message", (from: string, raw: string) => {
      if (from !== this.channel) return;
      const message = this.codec.decode(raw);
      if (message !== null) void this.local.publish(message);
      this.heard(raw);
    });
    this.subscribed = this.sub.subscribe(this.channel);
  }

  async publish(message: T): Promise<void> {
    await this.subscribed;
    const raw = this.codec.encode(message);
    let resolve!: () => void;
    const echo = new Promise<void>((r) => (resolve = r));
    const waiting = this.echoes.get(raw) ?? [];
    waiting.push(resolve);
    this.echoes.set(raw, waiting);
    const timer = setTimeout(() => this.forget(raw, resolve), ECHO_WAIT_MS);
    timer.unref();
    try {
      await this.pub.publish(this.channel, raw);
      await echo;
    } finally {
      clearTimeout(timer);
      this.forget(raw, resolve);
    }
  }

  /** The first publish waiting for `raw` has its echo. */
  private heard(raw: string): void {
    const waiting = this.echoes.get(raw);
    const first = waiting?.shift();
    if (waiting && waiting.length === 0) this.echoes.delete(raw);
    first?.();
  }

  /** Stops waiting (echo heard, timed out or the publish failed); resolves the wait. */
  private forget(raw: string, resolve: () => void): void {
    const waiting = this.echoes.get(raw);
    if (waiting) {
      const i = waiting.indexOf(resolve);
      if (i >= 0) waiting.splice(i, 1);
      if (waiting.length === 0) this.echoes.delete(raw);
    }
    resolve();
  }

  subscribe(listener: (message: T) => void): () => void {
    return this.local.subscribe(listener);
  }

  async ready(): Promise<void> {
    await this.subscribed;
  }

  async close(): Promise<void> {
    await this.local.close();
    await Promise.allSettled([this.sub.quit(), this.pub.quit()]);
  }
}
