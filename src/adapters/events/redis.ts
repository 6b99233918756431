import { EventEmitter } from "node:events";
import { Redis } from "ioredis";
import type { TaskEvent, TaskEventBus, TaskEventListener } from "@/core/ports/task-events";

const CHANNEL = "photofx:task-events";

/**
 * Task events over Redis pub/sub, so an SSE stream on one web process hears a task that a
 * worker process finished. Each process keeps one subscriber connection and fans out locally.
 */
export class RedisEventBus implements TaskEventBus {
  private readonly pub: Redis;
  private readonly sub: Redis;
  private readonly local = new EventEmitter();
  private ready: Promise<unknown>;

  constructor(url: string, onError: (err: Error) => void = () => {}) {
    this.local.setMaxListeners(0);
    this.pub = new Redis(url, { maxRetriesPerRequest: null });
    this.sub = new Redis(url, { maxRetriesPerRequest: null });
    this.pub.on("error", onError);
    this.sub.on("error", onError);
    this.sub.on("message", (_channel, message) => {
      let event: TaskEvent;
      try {
        event = JSON.parse(message) as TaskEvent;
      } catch {
        return;
      }
      this.local.emit("*", event);
      this.local.emit(`task:${event.taskId}`, event);
    });
    this.ready = this.sub.subscribe(CHANNEL);
  }

  async publish(event: TaskEvent): Promise<void> {
    await this.ready;
    await this.pub.publish(CHANNEL, JSON.stringify(event));
  }

  subscribeAll(listener: TaskEventListener): () => void {
    this.local.on("*", listener);
    return () => this.local.off("*", listener);
  }

  subscribe(taskId: string, listener: TaskEventListener): () => void {
    const name = `task:${taskId}`;
    this.local.on(name, listener);
    return () => this.local.off(name, listener);
  }

  async close(): Promise<void> {
    this.local.removeAllListeners();
    await Promise.allSettled([this.sub.quit(), this.pub.quit()]);
  }
}
