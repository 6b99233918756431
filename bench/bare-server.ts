/** A bare Node http server answering a small JSON body: the ceiling for this machine. */
import http from "node:http";

const body = JSON.stringify({ code: 1, status: 1, data: { imageUrl: "/api/images/x" }, failedReason: null });
const server = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    res.end(body);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT), "127.0.0.1", () => process.send?.({ ready: true }));
process.on("SIGTERM", () => process.exit(0));
