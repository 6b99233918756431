import { EventEmitter } from "node:events";
import { Redis } from "ioredis";

/**
 * How a settings change reaches every process: a bare "settings changed" signal; each
 * process then re-reads the database, which stays the truth. In-process on one machine,
 * Redis pub/sub in scale-out.
 */
export interface SettingsChannel {
  /** Tells every process (this one included) that the settings changed. */
  publish(): Promise<void>;
  /** Calls `onChange` on each signal; returns the unsubscribe function. */
  subscribe(onChange: () => void): () => void;
  /** Resolves once signals are being received. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/** Within one process (every DbSettings sharing this channel hears the others). */
export class InProcessSettingsChannel implements SettingsChannel {
  private readonly emitter = new EventEmitter();

  async publish(): Promise<void> {
    this.emitter.emit("changed");
  }

  subscribe(onChange: () => void): () => void {
    this.emitter.on("changed", onChange);
    return () => this.emitter.off("changed", onChange);
  }

  async ready(): Promise<void> {}

  async close(): Promise<void> {
    this.emitter.removeAllListeners();
  }
}

/** Redis pub/sub on `${namespace}:settings`: one subscriber connection per process. */
export class RedisSettingsChannel implements SettingsChannel {
  private readonly pub: Redis;
  private readonly sub: Redis;
  private readonly local = new EventEmitter();
  private readonly subscribed: Promise<unknown>;
  private readonly channel: string;

  constructor(url: string, namespace: string, onError: (err: Error) => void = () => {}) {
    this.channel = `${namespace}:settings`;
    this.pub = new Redis(url, { maxRetriesPerRequest: null });
    this.sub = new Redis(url, { maxRetriesPerRequest: null });
    this.pub.on("error", onError);
    this.sub.on("error", onError);
    this.sub.on("message", (channel) => {
      if (channel === this.channel) this.local.emit("changed");
    });
    this.subscribed = this.sub.subscribe(this.channel);
  }

  async publish(): Promise<void> {
    await this.subscribed;
    await this.pub.publish(this.channel, "changed");
  }

  subscribe(onChange: () => void): () => void {
    this.local.on("changed", onChange);
    return () => this.local.off("changed", onChange);
  }

  async ready(): Promise<void> {
    await this.subscribed;
  }

  async close(): Promise<void> {
    this.local.removeAllListeners();
    await Promise.allSettled([this.sub.quit(), this.pub.quit()]);
  }
}
