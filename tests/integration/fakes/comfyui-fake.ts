import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import sharp from "sharp";
import { OUTPUT_NODES, STOCK_NODES } from "@/engine/providers/comfyui/stock-nodes";

/**
 * A local stand-in for one ComfyUI server, speaking what ComfyUI's server.py and
 * execution.py really send: POST /upload/image (multipart, ComfyUI's " (1)" renaming),
 * POST /prompt (validation with `error` + `node_errors` on 400), GET /queue, GET
 * /history/{id}, GET /view, POST /interrupt, POST /queue {delete}, and the /ws socket with
 * JSON messages (status, execution_start, execution_cached, executing, progress,
 * progress_state, executed, execution_success, execution_error, execution_interrupted) and
 * binary preview frames (4-byte big-endian event type 1, 4-byte image type, JPEG bytes).
 * The WebSocket side is written by hand (RFC 6455 server frames), so the fake needs no
 * package and can drop a socket mid-job. The output is a real PNG: a tinted copy of the
 * first input image. Tests flip its switches and read what it received.
 */

export type ComfyUIFakeMode =
  /** Jobs run and save an image. */
  | "ok"
  /** POST /prompt answers 400 with node_errors (a missing model file). */
  | "node-errors"
  /** The sampler fails with a CUDA out-of-memory execution_error. */
  | "execution-error"
  /** The socket is cut after the first progress step; the job still finishes. */
  | "drop-socket"
  /** The job starts and never finishes (until interrupted). */
  | "stuck"
  /** The job finishes without saving any image. */
  | "no-output";

export interface ComfyUIFakeRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  at: number;
}

export interface ComfyUIFakeUpload {
  name: string;
  subfolder: string;
  type: string;
  /** Whether the client sent an `overwrite` field. */
  overwrite: boolean;
  bytes: Buffer;
}

export interface ComfyUIFake {
  url: string;
  /** Behaviour of the next submitted jobs (read at submit). */
  mode: ComfyUIFakeMode;
  /** Unreachable: every connection is destroyed at once. */
  down: boolean;
  /** Other clients' jobs listed in /queue. A foreign running job never ends and keeps ours waiting. */
  foreign: { running: number; pending: number };
  /** Answers to send instead of the real one, first match used once (e.g. 429 with Retry-After). */
  failures: Array<{ path: string; method?: string; status: number; retryAfter?: string }>;
  /** Send binary preview frames with each progress step (default true). */
  previews: boolean;
  /** Delay between execution steps. */
  stepMs: number;
  requests: ComfyUIFakeRequest[];
  uploads: ComfyUIFakeUpload[];
  /** Accepted prompts. */
  prompts: Array<{ promptId: string; clientId: string | undefined; prompt: Record<string, FakeNode> }>;
  /** prompt_id bodies of POST /interrupt (null: a global interrupt). */
  interrupts: Array<string | null>;
  /** Ids deleted from the queue with POST /queue {delete}. */
  deletes: string[];
  historyReads: number;
  binaryFramesSent: number;
  socketsOpened: number;
  socketsDropped: number;
  /** Connections destroyed while down. */
  refusedConnections: number;
  /** Headers of each socket upgrade. */
  upgrades: http.IncomingHttpHeaders[];
  close(): Promise<void>;
}

interface FakeNode {
  class_type: string;
  inputs: Record<string, unknown>;
}

interface Job {
  number: number;
  promptId: string;
  clientId: string | undefined;
  prompt: Record<string, FakeNode>;
  mode: ComfyUIFakeMode;
  interrupted: boolean;
  wake?: () => void;
}

/** The files key of a LoadImage value ("subfolder/name" or "name"). */
function inputKey(value: unknown): string {
  const v = String(value);
  const slash = v.lastIndexOf("/");
  return slash >= 0 ? `input/${v}` : `input//${v}`;
}

const WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
const STEPS = 4;

export async function startComfyUIFake(opts: { token?: string } = {}): Promise<ComfyUIFake> {
  const files = new Map<string, Buffer>(); // "<type>/<subfolder>/<name>"
  const history = new Map<string, Record<string, unknown>>();
  const pending: Job[] = [];
  let running: Job | undefined;
  let number = 0;
  const sockets = new Map<string, Socket>(); // clientId -> socket (ComfyUI keeps one per sid)
  const preview = await sharp({ create: { width: 8, height: 8, channels: 3, background: "#888" } })
    .jpeg()
    .toBuffer();

  const fake: ComfyUIFake = {
    url: "",
    mode: "ok",
    down: false,
    foreign: { running: 0, pending: 0 },
    failures: [],
    previews: true,
    stepMs: 5,
    requests: [],
    uploads: [],
    prompts: [],
    interrupts: [],
    deletes: [],
    historyReads: 0,
    binaryFramesSent: 0,
    socketsOpened: 0,
    socketsDropped: 0,
    refusedConnections: 0,
    upgrades: [],
    close: async () => {
      for (const s of sockets.values()) s.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  const authorized = (h: http.IncomingHttpHeaders) =>
    !opts.token || h.authorization === `Bearer ${opts.token}`;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://fake");
      fake.requests.push({
        method: req.method ?? "",
        path: url.pathname + url.search,
        headers: req.headers,
        at: Date.now(),
      });
      handle(req, res, url, Buffer.concat(chunks)).catch((err: unknown) => {
        if (!res.headersSent) json(res, 500, { error: String(err) });
      });
    });
  });
  server.on("connection", (socket) => {
    if (fake.down) {
      fake.refusedConnections++;
      socket.destroy();
    }
  });
  server.on("upgrade", (req, socket: Socket) => upgrade(req, socket));

  const json = (
    res: http.ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(body));
  };

  // ---- HTTP ------------------------------------------------------------------------

  async function handle(req: http.IncomingMessage, res: http.ServerResponse, url: URL, body: Buffer) {
    const path = url.pathname;
    const failure = fake.failures.findIndex((f) => f.path === path && (!f.method || f.method === req.method));
    if (failure >= 0) {
      const f = fake.failures.splice(failure, 1)[0]!;
      return json(res, f.status, { error: "scripted" }, f.retryAfter ? { "retry-after": f.retryAfter } : {});
    }
    if (!authorized(req.headers)) return json(res, 401, { error: "Unauthorized" });

    if (req.method === "GET" && path === "/queue") {
      return json(res, 200, queueInfo());
    }
    if (req.method === "POST" && path === "/upload/image") {
      const form = await new Response(new Uint8Array(body), {
        headers: { "content-type": req.headers["content-type"] ?? "" },
      }).formData();
      const image = form.get("image");
      if (!(image instanceof Blob) || !("name" in image) || !image.name) return json(res, 400, {});
      const type = String(form.get("type") ?? "input");
      const subfolder = String(form.get("subfolder") ?? "");
      const overwrite = form.get("overwrite");
      const bytes = Buffer.from(await image.arrayBuffer());
      // ComfyUI: without overwrite, an existing name gets " (1)", " (2)"… unless identical.
      let name = String(image.name);
      const dot = name.lastIndexOf(".");
      const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ""];
      for (let i = 1; files.has(`${type}/${subfolder}/${name}`) && overwrite !== "true"; i++) {
        if (files.get(`${type}/${subfolder}/${name}`)!.equals(bytes)) break;
        name = `${stem} (${i})${ext}`;
      }
      files.set(`${type}/${subfolder}/${name}`, bytes);
      fake.uploads.push({ name, subfolder, type, overwrite: overwrite !== null, bytes });
      return json(res, 200, { name, subfolder, type });
    }
    if (req.method === "POST" && path === "/prompt") return submit(res, body);
    if (req.method === "GET" && path.startsWith("/history/")) {
      fake.historyReads++;
      const id = decodeURIComponent(path.slice("/history/".length));
      const entry = history.get(id);
      return json(res, 200, entry ? { [id]: entry } : {});
    }
    if (req.method === "GET" && path === "/view") {
      const type = url.searchParams.get("type") ?? "output";
      const key = `${type}/${url.searchParams.get("subfolder") ?? ""}/${url.searchParams.get("filename") ?? ""}`;
      const file = files.get(key);
      if (!file) {
        res.writeHead(404);
        return res.end();
      }
      res.writeHead(200, { "content-type": "image/png", "content-length": String(file.length) });
      return res.end(file);
    }
    if (req.method === "POST" && path === "/interrupt") {
      const data = (JSON.parse(body.toString() || "{}") ?? {}) as { prompt_id?: string };
      fake.interrupts.push(data.prompt_id ?? null);
      if (running && (!data.prompt_id || data.prompt_id === running.promptId)) {
        running.interrupted = true;
        running.wake?.();
      }
      res.writeHead(200);
      return res.end();
    }
    if (req.method === "POST" && path === "/queue") {
      const data = JSON.parse(body.toString() || "{}") as { delete?: string[] };
      for (const id of data.delete ?? []) {
        fake.deletes.push(id);
        const i = pending.findIndex((j) => j.promptId === id);
        if (i >= 0) pending.splice(i, 1);
      }
      broadcastStatus();
      res.writeHead(200);
      return res.end();
    }
    return json(res, 404, { error: "not found" });
  }

  function queueInfo() {
    const item = (j: Job) => [j.number, j.promptId, j.prompt, { client_id: j.clientId }, []];
    const foreign = (n: number, kind: string) =>
      Array.from({ length: n }, (_, i) => [
        -1000 + i,
        `foreign-${kind}-${i}`,
        {},
        { client_id: "someone-else" },
        [],
      ]);
    return {
      queue_running: [...foreign(fake.foreign.running, "running"), ...(running ? [item(running)] : [])],
      queue_pending: [...foreign(fake.foreign.pending, "pending"), ...pending.map(item)],
    };
  }

  function submit(res: http.ServerResponse, body: Buffer) {
    const data = JSON.parse(body.toString()) as {
      prompt?: Record<string, FakeNode>;
      client_id?: string;
      prompt_id?: string;
    };
    if (!data.prompt) {
      return json(res, 400, {
        error: {
          type: "no_prompt",
          message: "No prompt provided",
          details: "No prompt provided",
          extra_info: {},
        },
        node_errors: {},
      });
    }
    const prompt = data.prompt;
    for (const [id, node] of Object.entries(prompt)) {
      if (!node?.class_type || !(node.class_type in STOCK_NODES)) {
        return json(res, 400, {
          error: {
            type: "invalid_prompt",
            message: `Cannot execute because node ${node?.class_type} does not exist.`,
            details: `Node ID '#${id}'`,
            extra_info: {},
          },
          node_errors: {},
        });
      }
    }
    const outputs = Object.keys(prompt).filter((id) => OUTPUT_NODES.includes(prompt[id]!.class_type));
    if (!outputs.length) {
      return json(res, 400, {
        error: { type: "prompt_no_outputs", message: "Prompt has no outputs", details: "", extra_info: {} },
        node_errors: {},
      });
    }
    const nodeErrors: Record<string, unknown> = {};
    for (const [id, node] of Object.entries(prompt)) {
      if (node.class_type === "LoadImage" && !files.has(inputKey(node.inputs.image))) {
        nodeErrors[id] = {
          errors: [
            {
              type: "custom_validation_failed",
              message: "Custom validation failed for node",
              details: `image - Invalid image file: ${String(node.inputs.image)}`,
              extra_info: {},
            },
          ],
          dependent_outputs: outputs,
          class_type: "LoadImage",
        };
      }
    }
    if (fake.mode === "node-errors") {
      const loader =
        Object.keys(prompt).find((id) => prompt[id]!.class_type === "UNETLoader") ?? Object.keys(prompt)[0]!;
      nodeErrors[loader] = {
        errors: [
          {
            type: "value_not_in_list",
            message: "Value not in list",
            details: `unet_name: '${String(prompt[loader]!.inputs.unet_name)}' not in []`,
            extra_info: {},
          },
        ],
        dependent_outputs: outputs,
        class_type: prompt[loader]!.class_type,
      };
    }
    if (Object.keys(nodeErrors).length) {
      return json(res, 400, {
        error: {
          type: "prompt_outputs_failed_validation",
          message: "Prompt outputs failed validation",
          details: "",
          extra_info: {},
        },
        node_errors: nodeErrors,
      });
    }
    const job: Job = {
      number: number++,
      promptId: data.prompt_id ?? crypto.randomUUID(),
      clientId: data.client_id,
      prompt,
      mode: fake.mode,
      interrupted: false,
    };
    pending.push(job);
    fake.prompts.push({ promptId: job.promptId, clientId: job.clientId, prompt });
    json(res, 200, { prompt_id: job.promptId, number: job.number, node_errors: {} });
    broadcastStatus();
    setImmediate(runNext);
  }

  // ---- execution -------------------------------------------------------------------

  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  function runNext() {
    if (running || fake.foreign.running > 0 || !pending.length) return;
    running = pending.shift()!;
    const job = running;
    void execute(job).finally(() => {
      running = undefined;
      broadcastStatus();
      setImmediate(runNext);
    });
  }

  async function execute(job: Job) {
    const messages: Array<[string, Record<string, unknown>]> = [];
    const send = (type: string, data: Record<string, unknown>, log = false) => {
      const payload = log ? { ...data, timestamp: Date.now() } : data;
      if (log) messages.push([type, payload]);
      sendJson(job.clientId, type, payload);
    };
    const end = (status: "success" | "error", outputs: Record<string, unknown>) => {
      history.set(job.promptId, {
        prompt: [job.number, job.promptId, job.prompt, { client_id: job.clientId }, []],
        outputs,
        status: { status_str: status, completed: status === "success", messages },
        meta: {},
      });
      sendJson(job.clientId, "executing", { node: null, prompt_id: job.promptId });
    };
    const interrupted = (nodeId: string, executed: string[]) => {
      send(
        "execution_interrupted",
        { prompt_id: job.promptId, node_id: nodeId, node_type: job.prompt[nodeId]!.class_type, executed },
        true,
      );
      end("error", {});
    };

    send("execution_start", { prompt_id: job.promptId }, true);
    send("execution_cached", { nodes: [], prompt_id: job.promptId }, true);
    const executed: string[] = [];
    const outputs: Record<string, unknown> = {};
    for (const [nodeId, node] of Object.entries(job.prompt)) {
      await sleep(fake.stepMs);
      if (job.interrupted) return interrupted(nodeId, executed);
      send("executing", { node: nodeId, display_node: nodeId, prompt_id: job.promptId });
      if (node.class_type === "KSampler") {
        for (let step = 1; step <= STEPS; step++) {
          await sleep(fake.stepMs);
          if (job.interrupted) return interrupted(nodeId, executed);
          send("progress", { value: step, max: STEPS, prompt_id: job.promptId, node: nodeId });
          send("progress_state", {
            prompt_id: job.promptId,
            nodes: {
              [nodeId]: {
                value: step,
                max: STEPS,
                state: "running",
                node_id: nodeId,
                prompt_id: job.promptId,
              },
            },
          });
          if (fake.previews) sendPreview(job.clientId);
          if (step === 1 && job.mode === "drop-socket" && job.clientId) {
            const s = sockets.get(job.clientId);
            if (s) {
              fake.socketsDropped++;
              s.destroy();
            }
          }
          if (step === 1 && job.mode === "stuck") {
            await new Promise<void>((resolve) => (job.wake = resolve));
            return interrupted(nodeId, executed);
          }
          if (step === 2 && job.mode === "execution-error") {
            send(
              "execution_error",
              {
                prompt_id: job.promptId,
                node_id: nodeId,
                node_type: node.class_type,
                executed,
                exception_message:
                  "Allocation on device 0 would exceed allowed memory. (out of memory)\nCurrently allocated     : 22.10 GiB",
                exception_type: "torch.OutOfMemoryError",
                traceback: ['  File "execution.py", line 496, in execute\n'],
                current_inputs: {},
                current_outputs: executed,
              },
              true,
            );
            return end("error", {});
          }
        }
      }
      if (node.class_type === "SaveImage" && job.mode !== "no-output") {
        const image = await render(job);
        const prefix = String(node.inputs.filename_prefix ?? "ComfyUI");
        const slash = prefix.lastIndexOf("/");
        const subfolder = slash >= 0 ? prefix.slice(0, slash) : "";
        const filename = `${slash >= 0 ? prefix.slice(slash + 1) : prefix}_00001_.png`;
        files.set(`output/${subfolder}/${filename}`, image);
        const output = { images: [{ filename, subfolder, type: "output" }] };
        outputs[nodeId] = output;
        send("executed", { node: nodeId, display_node: nodeId, output, prompt_id: job.promptId });
      }
      executed.push(nodeId);
    }
    send("execution_success", { prompt_id: job.promptId }, true);
    end("success", outputs);
  }

  /** The "render": the first LoadImage's picture, tinted, at the latent's size if there is one. */
  async function render(job: Job): Promise<Buffer> {
    const load = Object.values(job.prompt).find((n) => n.class_type === "LoadImage");
    const input = load ? files.get(inputKey(load.inputs.image)) : undefined;
    const latent = Object.values(job.prompt).find((n) => n.class_type === "EmptySD3LatentImage");
    const w = Number(latent?.inputs.width) || 64;
    const h = Number(latent?.inputs.height) || 64;
    const base = input
      ? sharp(input)
      : sharp({ create: { width: w, height: h, channels: 3, background: "#777" } });
    return base
      .resize(Math.max(16, Math.round(w / 16)), Math.max(16, Math.round(h / 16)), { fit: "fill" })
      .tint("#c8a040")
      .png()
      .toBuffer();
  }

  // ---- WebSocket -------------------------------------------------------------------

  function upgrade(req: http.IncomingMessage, socket: Socket) {
    const url = new URL(req.url ?? "/", "http://fake");
    const key = req.headers["sec-websocket-key"];
    if (url.pathname !== "/ws" || typeof key !== "string") return socket.destroy();
    if (!authorized(req.headers)) {
      socket.end("HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    fake.upgrades.push(req.headers);
    const accept = createHash("sha1")
      .update(key + WS_GUID)
      .digest("base64");
    socket.write(
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
        `Sec-WebSocket-Accept: ${accept}\r\n\r\n`,
    );
    fake.socketsOpened++;
    const sid = url.searchParams.get("clientId") || crypto.randomUUID().replace(/-/g, "");
    sockets.get(sid)?.destroy(); // ComfyUI drops the old socket of a reused sid
    sockets.set(sid, socket);
    socket.on("close", () => {
      if (sockets.get(sid) === socket) sockets.delete(sid);
    });
    socket.on("error", () => undefined);
    readClientFrames(socket);
    writeFrame(
      socket,
      0x1,
      Buffer.from(JSON.stringify({ type: "status", data: { status: statusInfo(), sid } })),
    );
  }

  /** Answers the client's close and ping frames; everything else it sends is ignored. */
  function readClientFrames(socket: Socket) {
    let buf = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      for (;;) {
        if (buf.length < 2) return;
        const opcode = buf[0]! & 0x0f;
        let len = buf[1]! & 0x7f;
        let offset = 2;
        if (len === 126) {
          if (buf.length < 4) return;
          len = buf.readUInt16BE(2);
          offset = 4;
        } else if (len === 127) {
          if (buf.length < 10) return;
          len = Number(buf.readBigUInt64BE(2));
          offset = 10;
        }
        const masked = (buf[1]! & 0x80) !== 0;
        const total = offset + (masked ? 4 : 0) + len;
        if (buf.length < total) return;
        const mask = masked ? buf.subarray(offset, offset + 4) : undefined;
        const payload = Buffer.from(buf.subarray(offset + (masked ? 4 : 0), total));
        if (mask) for (let i = 0; i < payload.length; i++) payload[i]! ^= mask[i % 4]!;
        buf = buf.subarray(total);
        if (opcode === 0x8) {
          writeFrame(socket, 0x8, payload.subarray(0, 2));
          socket.end();
          return;
        }
        if (opcode === 0x9) writeFrame(socket, 0xa, payload);
      }
    });
  }

  function writeFrame(socket: Socket, opcode: number, payload: Buffer) {
    if (socket.destroyed || !socket.writable) return;
    let header: Buffer;
    if (payload.length < 126) header = Buffer.from([0x80 | opcode, payload.length]);
    else if (payload.length < 65536) {
      header = Buffer.alloc(4);
      header[0] = 0x80 | opcode;
      header[1] = 126;
      header.writeUInt16BE(payload.length, 2);
    } else {
      header = Buffer.alloc(10);
      header[0] = 0x80 | opcode;
      header[1] = 127;
      header.writeBigUInt64BE(BigInt(payload.length), 2);
    }
    socket.write(Buffer.concat([header, payload]));
  }

  const statusInfo = () => ({
    exec_info: {
      queue_remaining: fake.foreign.running + fake.foreign.pending + pending.length + (running ? 1 : 0),
    },
  });

  function sendJson(clientId: string | undefined, type: string, data: Record<string, unknown>) {
    const s = clientId ? sockets.get(clientId) : undefined;
    if (s) writeFrame(s, 0x1, Buffer.from(JSON.stringify({ type, data })));
  }

  function broadcastStatus() {
    const msg = Buffer.from(JSON.stringify({ type: "status", data: { status: statusInfo() } }));
    for (const s of sockets.values()) writeFrame(s, 0x1, msg);
  }

  /** A PREVIEW_IMAGE frame: event type 1, image type 1 (JPEG), then the JPEG. */
  function sendPreview(clientId: string | undefined) {
    const s = clientId ? sockets.get(clientId) : undefined;
    if (!s) return;
    const head = Buffer.alloc(8);
    head.writeUInt32BE(1, 0);
    head.writeUInt32BE(1, 4);
    writeFrame(s, 0x2, Buffer.concat([head, preview]));
    fake.binaryFramesSent++;
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
