// The sandbox console. The access token lives in this script's memory only: never in a URL, a cookie or storage.
// Every element a browser test looks for has a stable id or class (see docs/api-decisions.md, "Sandbox console").
// Values of the API (a delivery's `status`, an endpoint's `state`) stay as the API sends them in `data-*`
// attributes and titles; only the words shown for them follow the page's language.
"use strict";

(function () {
  const TEXT = {
    es: {
      title: "Consola del sandbox", reference: "Referencia", logout: "Salir", email: "Correo",
      password: "Contraseña", login: "Entrar", requests: "Solicitudes recientes", statusClass: "Clase",
      all: "Todas", status: "Estado", path: "Ruta", apply: "Filtrar", refresh: "Actualizar", when: "Cuándo",
      method: "Método", latency: "Latencia", error: "Error", requestId: "Id de solicitud",
      requestHeaders: "Encabezados de la solicitud", requestBody: "Cuerpo de la solicitud",
      responseBody: "Cuerpo de la respuesta", webhooks: "Webhooks", language: "Idioma",
      intro: "Entre con las credenciales de su integración: verá las solicitudes recientes de su sociedad.",
      shown: "{n} solicitudes (se guardan las últimas {ring} de la sociedad).", none: "Ninguna solicitud.",
      dropped: " {n} no se registraron.", deliveries: "Entregas", retry: "Reenviar",
      retried: "Reenvío pedido: el nuevo intento aparece en unos segundos.",
      noEndpoints: "La sociedad no tiene endpoints de webhook.", noDeliveries: "Ninguna entrega.",
      failed: "Falló: {message}", allTypes: "todos los tipos", created: "Creada", event: "Evento",
      attempts: "Intentos", lastAnswer: "Última respuesta", nextRetry: "Próximo intento", actions: "Acciones",
      open: "Ver intentos", close: "Ocultar", noAttempts: "Todavía sin intentos.", noAnswer: "sin respuesta",
      answer: "Respuesta del receptor (primeros bytes)", attemptStatus: "Estado HTTP",
      resend: "Enviar de nuevo", resendAnswer: "Nueva respuesta", resending: "Enviando…",
      resent: "Enviada de nuevo: aparece en la lista cuando se registra.",
      resend_redacted_secret: "No se puede enviar de nuevo: su cuerpo o su consulta tenían un secreto, que no se guardó.",
      resend_body_not_kept: "No se puede enviar de nuevo: la consola no guardó su cuerpo.",
      state_enabled: "habilitado", state_disabled: "deshabilitado",
      delivery_pending: "pendiente", delivery_delivering: "enviándose", delivery_succeeded: "entregada",
      delivery_failed: "fallida", delivery_abandoned: "abandonada"
    },
    pt: {
      title: "Console do sandbox", reference: "Referência", logout: "Sair", email: "E-mail", password: "Senha",
      login: "Entrar", requests: "Requisições recentes", statusClass: "Classe", all: "Todas", status: "Status",
      path: "Caminho", apply: "Filtrar", refresh: "Atualizar", when: "Quando", method: "Método",
      latency: "Latência", error: "Erro", requestId: "Id da requisição",
      requestHeaders: "Cabeçalhos da requisição", requestBody: "Corpo da requisição",
      responseBody: "Corpo da resposta", webhooks: "Webhooks", language: "Idioma",
      intro: "Entre com as credenciais da sua integração: verá as requisições recentes da sua sociedade.",
      shown: "{n} requisições (guardam-se as últimas {ring} da sociedade).", none: "Nenhuma requisição.",
      dropped: " {n} não foram registradas.", deliveries: "Entregas", retry: "Reenviar",
      retried: "Reenvio pedido: a nova tentativa aparece em alguns segundos.",
      noEndpoints: "A sociedade não tem endpoints de webhook.", noDeliveries: "Nenhuma entrega.",
      failed: "Falhou: {message}", allTypes: "todos os tipos", created: "Criada", event: "Evento",
      attempts: "Tentativas", lastAnswer: "Última resposta", nextRetry: "Próxima tentativa", actions: "Ações",
      open: "Ver tentativas", close: "Ocultar", noAttempts: "Ainda sem tentativas.", noAnswer: "sem resposta",
      answer: "Resposta do receptor (primeiros bytes)", attemptStatus: "Status HTTP",
      resend: "Enviar novamente", resendAnswer: "Nova resposta", resending: "Enviando…",
      resent: "Enviada novamente: aparece na lista quando for registrada.",
      resend_redacted_secret: "Não pode ser enviada novamente: seu corpo ou sua consulta tinham um segredo, que não foi guardado.",
      resend_body_not_kept: "Não pode ser enviada novamente: o console não guardou seu corpo.",
      state_enabled: "ativado", state_disabled: "desativado",
      delivery_pending: "pendente", delivery_delivering: "enviando", delivery_succeeded: "entregue",
      delivery_failed: "falhou", delivery_abandoned: "abandonada"
    },
    en: {
      title: "Sandbox console", reference: "Reference", logout: "Log out", email: "Email", password: "Password",
      login: "Log in", requests: "Recent requests", statusClass: "Class", all: "All", status: "Status",
      path: "Path", apply: "Filter", refresh: "Refresh", when: "When", method: "Method", latency: "Latency",
      error: "Error", requestId: "Request id", requestHeaders: "Request headers", requestBody: "Request body",
      responseBody: "Response body", webhooks: "Webhooks", language: "Language",
      intro: "Log in with your integration's credentials to see your society's recent requests.",
      shown: "{n} requests (the society's last {ring} are kept).", none: "No requests.",
      dropped: " {n} were not recorded.", deliveries: "Deliveries", retry: "Redeliver",
      retried: "Redelivery asked for: the new attempt shows in a few seconds.",
      noEndpoints: "The society has no webhook endpoints.", noDeliveries: "No deliveries.",
      failed: "Failed: {message}", allTypes: "every type", created: "Created", event: "Event",
      attempts: "Attempts", lastAnswer: "Last answer", nextRetry: "Next retry", actions: "Actions",
      open: "Show attempts", close: "Hide", noAttempts: "No attempts yet.", noAnswer: "no answer",
      answer: "The receiver's answer (first bytes)", attemptStatus: "HTTP status",
      resend: "Send again", resendAnswer: "New answer", resending: "Sending…",
      resent: "Sent again: it shows in the list once recorded.",
      resend_redacted_secret: "It cannot be sent again: its body or query held a secret, which was not kept.",
      resend_body_not_kept: "It cannot be sent again: the console did not keep its body.",
      state_enabled: "enabled", state_disabled: "disabled",
      delivery_pending: "pending", delivery_delivering: "delivering", delivery_succeeded: "succeeded",
      delivery_failed: "failed", delivery_abandoned: "abandoned"
    }
  };

  // The language: `?lang=` (the selector keeps it there), else the browser's first one the page speaks, else Spanish.
  function firstLanguage() {
    const asked = new URLSearchParams(location.search).get("lang");
    const wanted = [asked].concat(navigator.languages || [], [navigator.language]);
    for (const tag of wanted) {
      const code = String(tag || "").slice(0, 2).toLowerCase();
      if (TEXT[code]) return code;
    }
    return "es";
  }
  let language = firstLanguage();
  let text = TEXT[language];
  const say = (key, values) =>
    Object.entries(values || {}).reduce((s, [name, value]) => s.replace("{" + name + "}", value), text[key] || key);
  // The words for an API value, or the value itself when the page has none for it (a status added later).
  const label = (prefix, value) => text[prefix + "_" + value] || value;

  const body = document.body;
  const systemIdHeader = body.dataset.systemIdHeader;
  const systemId = body.dataset.systemId;
  const $ = (id) => document.getElementById(id);
  let token = null;
  let shownRequest = null;

  function applyTexts() {
    document.documentElement.lang = language;
    document.title = "Tranquera · " + say("title");
    document.querySelectorAll("[data-i18n]").forEach((element) => {
      element.textContent = say(element.dataset.i18n);
    });
    $("lang").value = language;
  }

  function headers(json, extra) {
    const sent = Object.assign({ Accept: "application/json", "Accept-Language": language }, extra || {});
    sent[systemIdHeader] = systemId;
    if (token) sent.Authorization = "Bearer " + token;
    if (json) sent["Content-Type"] = "application/json";
    return sent;
  }

  async function call(method, path, payload) {
    const response = await fetch(path, {
      method,
      headers: headers(payload !== undefined),
      body: payload === undefined ? undefined : JSON.stringify(payload),
      credentials: "omit",
      cache: "no-store"
    });
    const answer = await response.json().catch(() => null);
    if (!response.ok) {
      const message = answer && answer.error ? answer.error.message : String(response.status);
      throw Object.assign(new Error(message), { status: response.status });
    }
    return answer;
  }

  function element(tag, className, content) {
    const made = document.createElement(tag);
    if (className) made.className = className;
    if (content instanceof Node) made.appendChild(content); else made.textContent = content == null ? "" : content;
    return made;
  }

  function cell(row, className, content) {
    return row.appendChild(element("td", className, content));
  }

  function headRow(table, keys) {
    const row = table.createTHead().insertRow();
    for (const key of keys) row.appendChild(element("th", null, key ? say(key) : ""));
  }

  function button(className, key, onClick) {
    const made = element("button", className, say(key));
    made.type = "button";
    made.addEventListener("click", onClick);
    return made;
  }

  function statusClass(status) {
    return "status-" + String(status).charAt(0) + "xx";
  }

  function pretty(value) {
    return typeof value === "string" ? value : JSON.stringify(value, null, 2);
  }

  function randomId() {
    const bytes = new Uint8Array(8);
    crypto.getRandomValues(bytes);
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  function showResendState(request) {
    const resend = request.resend || { allowed: false };
    $("detail-resend").disabled = !resend.allowed;
    $("detail-resend-note").textContent = resend.allowed ? "" : say("resend_" + resend.reason);
  }

  async function showDetail(id, row) {
    document.querySelectorAll("tr.request.selected").forEach((r) => r.classList.remove("selected"));
    row.classList.add("selected");
    try {
      const request = await call("GET", "/console/api/requests/" + id);
      shownRequest = request;
      $("detail-title").textContent = request.method + " " + request.path + (request.query ? "?" + request.query : "") +
        " → " + request.status;
      $("detail-request-headers").textContent = pretty(request.request_headers);
      $("detail-request-body").textContent = pretty(request.request_body);
      $("detail-response-body").textContent = pretty(request.response_body);
      $("request-detail").dataset.id = request.id;
      $("resend-result").hidden = true;
      showResendState(request);
      $("request-detail").hidden = false;
    } catch (error) {
      $("status-line").textContent = say("failed", { message: error.message });
    }
  }

  // Sends the shown request again as it was recorded (method, path, query, body) with this page's token, shows the
  // answer, and looks for the new request in the list, which the server records like any other.
  async function resend() {
    const request = shownRequest;
    if (!request || !request.resend || !request.resend.allowed) return;
    const requestId = "console-resend-" + randomId();
    const hasBody = request.request_body !== null && request.request_body !== undefined;
    $("detail-resend-note").textContent = say("resending");
    try {
      const response = await fetch(request.path + (request.query ? "?" + request.query : ""), {
        method: request.method,
        headers: headers(hasBody, { "X-Request-Id": requestId }),
        body: hasBody ? JSON.stringify(request.request_body) : undefined,
        credentials: "omit",
        cache: "no-store"
      });
      const answer = await response.text();
      let shown = answer;
      try { shown = pretty(JSON.parse(answer)); } catch (_) { /* not JSON: shown as it came */ }
      $("resend-status").textContent = String(response.status);
      $("resend-status").className = statusClass(response.status);
      $("resend-request-id").textContent = response.headers.get("x-request-id") || requestId;
      $("resend-body").textContent = shown;
      $("resend-result").hidden = false;
      $("detail-resend-note").textContent = say("resent");
      await waitForRequest($("resend-request-id").textContent);
    } catch (error) {
      $("detail-resend-note").textContent = say("failed", { message: error.message });
    }
  }

  // The list again, until it holds the request `requestId` (recorded a moment after it was answered), for 15 s.
  async function waitForRequest(requestId) {
    for (let round = 0; round < 15; round++) {
      await loadRequests();
      const found = Array.from(document.querySelectorAll("#requests-body tr.request"))
        .find((row) => row.dataset.requestId === requestId);
      if (found) {
        found.classList.add("resent");
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }

  async function loadRequests() {
    const query = new URLSearchParams();
    const status = $("filter-status").value.trim() || $("filter-status-class").value;
    if (status) query.set("status", status);
    const path = $("filter-path").value.trim();
    if (path) query.set("path", path);
    try {
      const answer = await call("GET", "/console/api/requests" + (query.toString() ? "?" + query : ""));
      const tbody = $("requests-body");
      tbody.replaceChildren();
      for (const request of answer.items) {
        const row = document.createElement("tr");
        row.className = "request";
        row.dataset.id = request.id;
        row.dataset.method = request.method;
        row.dataset.status = request.status;
        row.dataset.path = request.path;
        row.dataset.requestId = request.request_id || "";
        cell(row, "request-at", request.at);
        cell(row, "request-method", request.method);
        cell(row, "request-path", request.path + (request.query ? "?" + request.query : ""));
        cell(row, "request-status " + statusClass(request.status), request.status);
        cell(row, "request-latency", request.latency_ms + " ms");
        cell(row, "request-error", request.error_message);
        cell(row, "request-id", request.request_id);
        let link = "";
        if (request.reference) {
          link = element("a", "request-reference", request.reference.operation_id);
          link.href = request.reference.url;
          link.addEventListener("click", (event) => event.stopPropagation());
        }
        cell(row, "request-link", link);
        row.addEventListener("click", () => showDetail(request.id, row));
        tbody.appendChild(row);
      }
      let line = answer.items.length ? say("shown", { n: answer.items.length, ring: answer.ring_size }) : say("none");
      if (answer.dropped) line += say("dropped", { n: answer.dropped });
      $("status-line").textContent = line;
    } catch (error) {
      if (error.status === 401) return logout();
      $("status-line").textContent = say("failed", { message: error.message });
    }
  }

  // A delivery's attempts, oldest first: time, HTTP status (or why no answer came), latency, the answer's first bytes.
  function attemptsTable(delivery) {
    const wrapper = element("div", "delivery-attempts-detail");
    if (delivery.status === "pending" && delivery.next_attempt_at) {
      wrapper.appendChild(element("p", "delivery-next-line", say("nextRetry") + ": " + delivery.next_attempt_at));
    }
    if (!delivery.attempts.length) {
      wrapper.appendChild(element("p", "delivery-no-attempts", say("noAttempts")));
      return wrapper;
    }
    const table = element("table", "delivery-attempts");
    headRow(table, ["when", "attemptStatus", "latency", "answer"]);
    const rows = table.createTBody();
    for (const attempt of delivery.attempts) {
      const row = rows.insertRow();
      row.className = "delivery-attempt";
      row.dataset.statusCode = attempt.status_code == null ? "" : attempt.status_code;
      cell(row, "attempt-at", attempt.attempted_at);
      const status = attempt.status_code == null ? say("noAnswer") + (attempt.error ? ": " + attempt.error : "")
        : attempt.status_code;
      cell(row, "attempt-status" + (attempt.status_code == null ? "" : " " + statusClass(attempt.status_code)), status);
      cell(row, "attempt-latency", attempt.latency_ms + " ms");
      cell(row, "attempt-answer", element("pre", "attempt-answer-head", attempt.response_head || ""));
    }
    wrapper.appendChild(table);
    return wrapper;
  }

  function deliveryRows(endpoint, delivery, container, open) {
    const row = document.createElement("tr");
    row.className = "webhook-delivery";
    row.dataset.id = delivery.id;
    row.dataset.status = delivery.status;
    row.dataset.attempts = delivery.attempts.length;
    cell(row, "delivery-created", delivery.created_at);
    cell(row, "delivery-event", delivery.event_type);
    cell(row, "delivery-status status-" + delivery.status, label("delivery", delivery.status)).title = delivery.status;
    cell(row, "delivery-attempts-count", delivery.attempts.length);
    const last = delivery.attempts.length ? delivery.attempts[delivery.attempts.length - 1] : null;
    cell(row, "delivery-last", last ? (last.status_code || last.error || say("noAnswer")) : "");
    cell(row, "delivery-next-attempt", delivery.status === "pending" ? delivery.next_attempt_at || "" : "—");
    const detail = document.createElement("tr");
    detail.className = "delivery-detail";
    detail.dataset.id = delivery.id;
    detail.hidden = !open.has(delivery.id);
    const detailCell = cell(detail, "delivery-detail-cell", attemptsTable(delivery));
    detailCell.colSpan = 7;
    const toggle = button("delivery-open", detail.hidden ? "open" : "close", () => {
      detail.hidden = !detail.hidden;
      toggle.textContent = say(detail.hidden ? "open" : "close");
      if (detail.hidden) open.delete(delivery.id); else open.add(delivery.id);
    });
    const retry = button("delivery-retry", "retry", () => redeliver(endpoint, delivery, container, open));
    const actions = cell(row, "delivery-actions", toggle);
    actions.appendChild(retry);
    return [row, detail];
  }

  async function loadDeliveries(endpoint, container, open) {
    try {
      const page = await call("GET", "/api/v3/third_party/webhook_endpoints/" + endpoint.id + "/deliveries?size=20");
      container.replaceChildren();
      if (!page.items.length) {
        container.textContent = say("noDeliveries");
        return page.items;
      }
      const table = element("table", "webhook-deliveries");
      headRow(table, ["created", "event", "status", "attempts", "lastAnswer", "nextRetry", "actions"]);
      const rows = table.createTBody();
      for (const delivery of page.items) rows.append(...deliveryRows(endpoint, delivery, container, open));
      container.appendChild(table);
      return page.items;
    } catch (error) {
      container.textContent = say("failed", { message: error.message });
      return [];
    }
  }

  // Asks for the delivery again, then reads the list until its new attempt is in (for 30 s), its attempts shown.
  async function redeliver(endpoint, delivery, container, open) {
    const before = delivery.attempts.length;
    try {
      await call("POST", "/api/v3/third_party/webhook_endpoints/" + endpoint.id + "/deliveries/" + delivery.id + "/retry");
      $("webhooks-status").textContent = say("retried");
    } catch (error) {
      $("webhooks-status").textContent = say("failed", { message: error.message });
      return;
    }
    open.add(delivery.id);
    for (let round = 0; round < 30; round++) {
      const items = await loadDeliveries(endpoint, container, open);
      const now = items.find((item) => item.id === delivery.id);
      if (!now || (now.attempts.length > before && now.status !== "delivering")) return;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }

  async function loadWebhooks() {
    const list = $("webhook-endpoints");
    list.replaceChildren();
    try {
      const page = await call("GET", "/api/v3/third_party/webhook_endpoints?size=100");
      $("webhooks-status").textContent = page.items.length ? "" : say("noEndpoints");
      for (const endpoint of page.items) {
        const item = element("li", "webhook-endpoint");
        item.dataset.id = endpoint.id;
        item.dataset.state = endpoint.state;
        const title = element("div", "webhook-endpoint-url", endpoint.url + " · ");
        const state = element("span", "webhook-endpoint-state state-" + endpoint.state, label("state", endpoint.state));
        state.title = endpoint.state;
        title.append(state, " · " + (endpoint.types.length ? endpoint.types.join(", ") : say("allTypes")));
        const deliveries = element("div", "webhook-deliveries-list");
        const open = new Set();
        const show = button("webhook-deliveries-load", "deliveries", () => loadDeliveries(endpoint, deliveries, open));
        item.append(title, show, deliveries);
        list.appendChild(item);
      }
    } catch (error) {
      $("webhooks-status").textContent = say("failed", { message: error.message });
    }
  }

  function logout() {
    token = null;
    shownRequest = null;
    $("session").hidden = true;
    $("requests-section").hidden = true;
    $("webhooks").hidden = true;
    $("request-detail").hidden = true;
    $("requests-body").replaceChildren();
    $("webhook-endpoints").replaceChildren();
    $("login").hidden = false;
  }

  // Another language: the page's words change, the address keeps it (`?lang=`), and what is shown is read again in
  // it (error messages come in the language the API is asked in).
  async function switchLanguage(code) {
    if (!TEXT[code]) return;
    language = code;
    text = TEXT[code];
    const address = new URL(location.href);
    address.searchParams.set("lang", code);
    history.replaceState(null, "", address);
    applyTexts();
    if (shownRequest) showResendState(shownRequest);
    if (token) {
      await loadRequests();
      await loadWebhooks();
    }
  }

  applyTexts();
  $("lang").addEventListener("change", (event) => switchLanguage(event.target.value));
  $("login-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    $("login-error").textContent = "";
    try {
      const answer = await call("POST", "/api/v2/login", {
        email: $("login-email").value,
        password: $("login-password").value
      });
      token = answer.access_token;
      $("login-password").value = "";
      $("society-name").textContent = answer.society.legalName;
      $("login").hidden = true;
      $("session").hidden = false;
      $("requests-section").hidden = false;
      $("webhooks").hidden = false;
      await loadRequests();
      await loadWebhooks();
    } catch (error) {
      $("login-error").textContent = error.message;
    }
  });
  $("filter-form").addEventListener("submit", (event) => {
    event.preventDefault();
    loadRequests();
  });
  $("refresh").addEventListener("click", loadRequests);
  $("webhooks-refresh").addEventListener("click", loadWebhooks);
  $("detail-resend").addEventListener("click", resend);
  $("logout").addEventListener("click", logout);
})();
