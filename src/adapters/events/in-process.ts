import { EventEmitter } from "node:events";
import type { TaskEvent, TaskEventBus, TaskEventListener } from "@/core/ports/task-events";

/** Task events within one process. */
export class InProcessEventBus implements TaskEventBus {
  private readonly emitter = new EventEmitter();

  constructor() {
    // One listener per open SSE stream: no fixed cap.
    this.emitter.setMaxListeners(0);
  }

  async publish(event: TaskEvent): Promise<void> {
    this.emitter.emit("*", event);
    this.emitter.emit(`task:${event.taskId}`, event);
  }

  subscribeAll(listener: TaskEventListener): () => void {
    this.emitter.on("*", listener);
    return () => this.emitter.off("*", listener);
  }

  subscribe(taskId: string, listener: TaskEventListener): () => void {
    const name = `task:${taskId}`;
    this.emitter.on(name, listener);
    return () => this.emitter.off(name, listener);
  }

  async close(): Promise<void> {
    this.emitter.removeAllListeners();
  }
}
