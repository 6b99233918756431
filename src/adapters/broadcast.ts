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

/**
 * Redis pub/sub on one channel. Messages travel as text: `encode` writes one, `decode` reads
 * one back and answers null for anything malformed (dropped: the channel is not trusted input).
 */
export class RedisBroadcast<T> implements Broadcast<T> {
  private readonly pub: Redis;
  private readonly sub: Redis;
  private readonly local = new InProcessBroadcast<T>();
  private readonly subscribed: Promise<unknown>;

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
    });
    this.subscribed = this.sub.subscribe(this.channel);
  }

  async publish(message: T): Promise<void> {
    await this.subscribed;
    await this.pub.publish(this.channel, this.codec.encode(message));
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
