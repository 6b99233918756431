import { EventEmitter } from "node:events";
import { Redis } from "ioredis";
import { z } from "zod";
import type {
  SessionRevocation,
  SessionRevocationChannel,
  SessionRevocationListener,
} from "@/core/ports/session-revocations";

const ids = z.array(z.string().min(1).max(256)).max(10_000).optional();
const message = z.object({ sessionIds: ids, userIds: ids });

/** Within one process. */
export class InProcessSessionRevocations implements SessionRevocationChannel {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  async publish(revocation: SessionRevocation): Promise<void> {
    this.emitter.emit("revoked", revocation);
  }

  subscribe(listener: SessionRevocationListener): () => void {
    this.emitter.on("revoked", listener);
    return () => this.emitter.off("revoked", listener);
  }

  async ready(): Promise<void> {}

  async close(): Promise<void> {
    this.emitter.removeAllListeners();
  }
}

/**
 * Redis pub/sub on `${namespace}:sessions-revoked` (the namespace is QUEUE_NAME, as the
 * settings channel's): one subscriber connection per process, fanned out locally.
 */
export class RedisSessionRevocations implements SessionRevocationChannel {
  private readonly pub: Redis;
  private readonly sub: Redis;
  private readonly local = new EventEmitter();
  private readonly subscribed: Promise<unknown>;
  private readonly channel: string;

  constructor(url: string, namespace: string, onError: (err: Error) => void = () => {}) {
    this.local.setMaxListeners(0);
    this.channel = `${namespace}:sessions-revoked`;
    this.pub = new Redis(url, { maxRetriesPerRequest: null });
    this.sub = new Redis(url, { maxRetriesPerRequest: null });
    this.pub.on("error", onError);
    this.sub.on("error", onError);
    this.sub.on("message", (channel, raw: string) => {
      if (channel !== this.channel) return;
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw);
      } catch {
        return;
      }
      const r = message.safeParse(parsed);
      if (r.success) this.local.emit("revoked", r.data);
    });
    this.subscribed = this.sub.subscribe(this.channel);
  }

  async publish(revocation: SessionRevocation): Promise<void> {
    await this.subscribed;
    await this.pub.publish(this.channel, JSON.stringify(revocation));
  }

  subscribe(listener: SessionRevocationListener): () => void {
    this.local.on("revoked", listener);
    return () => this.local.off("revoked", listener);
  }

  async ready(): Promise<void> {
    await this.subscribed;
  }

  async close(): Promise<void> {
    this.local.removeAllListeners();
    await Promise.allSettled([this.sub.quit(), this.pub.quit()]);
  }
}
