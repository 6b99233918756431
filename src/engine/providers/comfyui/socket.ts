import { createRequire } from "node:module";

/**
 * ComfyUI's progress socket (`/ws?clientId=…`) through the `ws` package. Text frames are
 * JSON `{type, data}` messages; binary frames are previews (a 4-byte big-endian event type,
 * then image bytes) and are dropped here. Node 20 has no global WebSocket, so without `ws`
 * the provider follows jobs by polling /history instead (openSocket returns undefined).
 */

export interface SocketMessage {
  type: string;
  data: Record<string, unknown>;
}

export interface ComfySocket {
  close(): void;
}

export interface SocketHandlers {
  onMessage(message: SocketMessage): void;
  /** The connection ended (dropped by the server, a network failure, or close()). */
  onClose(): void;
  /** A binary frame arrived (a preview), with its event type; nothing else is read from it. */
  onBinary?(eventType: number): void;
}

/** The part of a `ws` WebSocket (v7 or v8) we use. */
interface WsLike {
  on(event: "open", cb: () => void): void;
  on(event: "message", cb: (data: unknown, isBinary?: boolean) => void): void;
  on(event: "close", cb: () => void): void;
  on(event: "error", cb: (err: Error) => void): void;
  close(): void;
  terminate(): void;
}
type WsCtor = new (
  url: string,
  opts: { headers: Record<string, string>; handshakeTimeout: number },
) => WsLike;

let wsCtor: WsCtor | null | undefined;

/** The `ws` constructor, or null when the package is not installed. */
export function loadWs(): WsCtor | null {
  if (wsCtor === undefined) {
    try {
      const mod = createRequire(import.meta.url)("ws") as WsCtor & { WebSocket?: WsCtor };
      wsCtor = mod.WebSocket ?? mod;
    } catch {
      wsCtor = null;
    }
  }
  return wsCtor;
}

/**
 * Opens the socket and resolves once it is open, or with undefined if it cannot be opened
 * within timeoutMs (the caller then polls). Never rejects.
 */
export function openSocket(
  url: string,
  headers: Record<string, string>,
  handlers: SocketHandlers,
  timeoutMs: number,
): Promise<ComfySocket | undefined> {
  const Ws = loadWs();
  if (!Ws) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    let ws: WsLike;
    let open = false;
    let closed = false;
    const handle: ComfySocket = {
      close: () => {
        if (closed) return;
        try {
          ws.terminate();
        } catch {
          // already gone
        }
      },
    };
    try {
      ws = new Ws(url, { headers, handshakeTimeout: timeoutMs });
    } catch {
      resolve(undefined);
      return;
    }
    const timer = setTimeout(() => {
      if (!open) {
        handle.close();
        resolve(undefined);
      }
    }, timeoutMs);
    ws.on("open", () => {
      open = true;
      clearTimeout(timer);
      resolve(handle);
    });
    ws.on("error", () => {
      // "close" follows; before "open" this means no socket.
      if (!open) {
        clearTimeout(timer);
        resolve(undefined);
      }
    });
    ws.on("close", () => {
      closed = true;
      clearTimeout(timer);
      if (!open) resolve(undefined);
      else handlers.onClose();
    });
    ws.on("message", (data, isBinary) => {
      const text = asText(data, isBinary);
      if (text === undefined) {
        const bytes = asBytes(data);
        if (bytes && bytes.byteLength >= 4) handlers.onBinary?.(bytes.readUInt32BE(0));
        return;
      }
      const message = parseMessage(text);
      if (message) handlers.onMessage(message);
    });
  });
}

/** The text of a text frame; undefined for a binary one. ws v8 passes isBinary, v7 strings. */
function asText(data: unknown, isBinary: boolean | undefined): string | undefined {
  if (typeof data === "string") return data;
  if (isBinary === false) return asBytes(data)?.toString("utf8");
  return undefined;
}

function asBytes(data: unknown): Buffer | undefined {
  if (Buffer.isBuffer(data)) return data;
  if (data instanceof ArrayBuffer) return Buffer.from(data);
  if (Array.isArray(data) && data.every((d) => Buffer.isBuffer(d))) return Buffer.concat(data as Buffer[]);
  return undefined;
}

/** A `{type, data}` message, or undefined for anything else (ignored, never fatal). */
export function parseMessage(text: string): SocketMessage | undefined {
  try {
    const msg = JSON.parse(text) as { type?: unknown; data?: unknown };
    if (typeof msg?.type !== "string") return undefined;
    const data = msg.data && typeof msg.data === "object" ? (msg.data as Record<string, unknown>) : {};
    return { type: msg.type, data };
  } catch {
    return undefined;
  }
}
