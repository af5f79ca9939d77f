// A work order read, changed and written back, with types generated from the server's own document:
//   npx openapi-typescript http://127.0.0.1:8080/openapi.json -o api.d.ts
// then compiled with `tsc --strict` and run with node. TRANQUERA_URL is the server (the demo's by default).
// Every answer other than the one expected ends the program with an error: scripts/check-clients runs it.
import createClient from "openapi-fetch";
import type { components, paths } from "./api.js";

type WorkOrder = components["schemas"]["WorkOrder"];

const base = process.env.TRANQUERA_URL ?? "http://127.0.0.1:8080";
const api = createClient<paths>({
  baseUrl: base,
  headers: { "X-SVC-SYSTEM-ID": "8", "Accept-Language": "en" },
});

/** Ends the program when an answer is not the one expected. */
function expect(what: string, response: Response, status: number, error?: unknown): void {
  if (response.status !== status) {
    throw new Error(`${what}: expected ${status}, got ${response.status} ${JSON.stringify(error)}`);
  }
}

// Log in, then send the token with every request.
const login = await api.POST("/api/v2/login", {
  body: { email: "integrador@lapampa.com.ar", password: "LaPampa-2026" },
});
expect("login", login.response, 200, login.error);
const token = login.data!.access_token;
api.use({
  onRequest({ request }) {
    request.headers.set("Authorization", `Bearer ${token}`);
    return request;
  },
});

// An order that may still be changed.
const list = await api.GET("/api/v3/third_party/work_orders", { params: { query: { size: 100 } } });
expect("list work orders", list.response, 200, list.error);
const listed = list.data!.items.find((order) => !order.header.is_read_only);
if (!listed) throw new Error("no work order may be changed");
const id = listed.header.local_id;

// Read it with its ETag, change its name, and send the whole order back as it was read.
const read = await api.GET("/api/v3/third_party/work_orders/{id}", { params: { path: { id } } });
expect(`get work order ${id}`, read.response, 200, read.error);
const etag = read.response.headers.get("ETag") ?? "";
const order: WorkOrder = read.data!;
order.header.name = `${order.header.name} (checked)`;
const patch = await api.PATCH("/integration/api/v1/workOrders/{localId}", {
  params: { path: { localId: id }, header: { "If-Match": etag } },
  body: order,
});
expect(`replace work order ${id}`, patch.response, 200, patch.error);
if (patch.data!.header.name !== order.header.name) {
  throw new Error(`the name was not changed: ${JSON.stringify(patch.data!.header)}`);
}

// The ETag read before the change names a version the order no longer has: 412, and nothing is written.
const stale = await api.PATCH("/integration/api/v1/workOrders/{localId}", {
  params: { path: { localId: id }, header: { "If-Match": etag } },
  body: order,
});
expect(`replace work order ${id} with a stale If-Match`, stale.response, 412, stale.error);
if (stale.error?.error.reason !== "version_mismatch") {
  throw new Error(`a stale If-Match is version_mismatch: ${JSON.stringify(stale.error)}`);
}
console.log(`typescript: work order ${id} read, renamed and written back; a stale If-Match is 412`);
