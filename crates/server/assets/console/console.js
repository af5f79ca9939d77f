// The sandbox console. The access token lives in this script's memory only: never in a URL, a cookie or storage.
// Every element a browser test looks for has a stable id or class (see docs/api-decisions.md, "Sandbox console").
"use strict";

(function () {
  const TEXT = {
    es: {
      title: "Consola del sandbox", reference: "Referencia", logout: "Salir", email: "Correo",
      password: "Contraseña", login: "Entrar", requests: "Solicitudes recientes", statusClass: "Clase",
      all: "Todas", status: "Estado", path: "Ruta", apply: "Filtrar", refresh: "Actualizar", when: "Cuándo",
      method: "Método", latency: "Latencia", error: "Error", requestId: "Id de solicitud",
      requestHeaders: "Encabezados de la solicitud", requestBody: "Cuerpo de la solicitud",
      responseBody: "Cuerpo de la respuesta", webhooks: "Webhooks",
      intro: "Entre con las credenciales de su integración: verá las solicitudes recientes de su sociedad.",
      shown: "{n} solicitudes (se guardan las últimas {ring} de la sociedad).", none: "Ninguna solicitud.",
      dropped: " {n} no se registraron.", deliveries: "Entregas", retry: "Reintentar", retried: "Reintento programado.",
      noEndpoints: "La sociedad no tiene endpoints de webhook.", noDeliveries: "Ninguna entrega.",
      failed: "Falló: {message}"
    },
    pt: {
      title: "Console do sandbox", reference: "Referência", logout: "Sair", email: "E-mail", password: "Senha",
      login: "Entrar", requests: "Requisições recentes", statusClass: "Classe", all: "Todas", status: "Status",
      path: "Caminho", apply: "Filtrar", refresh: "Atualizar", when: "Quando", method: "Método",
      latency: "Latência", error: "Erro", requestId: "Id da requisição",
      requestHeaders: "Cabeçalhos da requisição", requestBody: "Corpo da requisição",
      responseBody: "Corpo da resposta", webhooks: "Webhooks",
      intro: "Entre com as credenciais da sua integração: verá as requisições recentes da sua sociedade.",
      shown: "{n} requisições (guardam-se as últimas {ring} da sociedade).", none: "Nenhuma requisição.",
      dropped: " {n} não foram registradas.", deliveries: "Entregas", retry: "Reenviar", retried: "Reenvio agendado.",
      noEndpoints: "A sociedade não tem endpoints de webhook.", noDeliveries: "Nenhuma entrega.",
      failed: "Falhou: {message}"
    },
    en: {
      title: "Sandbox console", reference: "Reference", logout: "Log out", email: "Email", password: "Password",
      login: "Log in", requests: "Recent requests", statusClass: "Class", all: "All", status: "Status",
      path: "Path", apply: "Filter", refresh: "Refresh", when: "When", method: "Method", latency: "Latency",
      error: "Error", requestId: "Request id", requestHeaders: "Request headers", requestBody: "Request body",
      responseBody: "Response body", webhooks: "Webhooks",
      intro: "Log in with your integration's credentials to see your society's recent requests.",
      shown: "{n} requests (the society's last {ring} are kept).", none: "No requests.",
      dropped: " {n} were not recorded.", deliveries: "Deliveries", retry: "Retry", retried: "Retry scheduled.",
      noEndpoints: "The society has no webhook endpoints.", noDeliveries: "No deliveries.",
      failed: "Failed: {message}"
    }
  };
  const language = (navigator.language || "es").slice(0, 2).toLowerCase();
  const text = TEXT[language] || TEXT.es;
  const say = (key, values) =>
    Object.entries(values || {}).reduce((s, [name, value]) => s.replace("{" + name + "}", value), text[key]);

  const body = document.body;
  const systemIdHeader = body.dataset.systemIdHeader;
  const systemId = body.dataset.systemId;
  const $ = (id) => document.getElementById(id);
  let token = null;

  document.documentElement.lang = TEXT[language] ? language : "es";
  document.querySelectorAll("[data-i18n]").forEach((element) => {
    element.textContent = say(element.dataset.i18n);
  });

  function headers(json) {
    const sent = { Accept: "application/json", "Accept-Language": language };
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

  function cell(row, className, content) {
    const td = document.createElement("td");
    td.className = className;
    if (content instanceof Node) td.appendChild(content); else td.textContent = content == null ? "" : content;
    row.appendChild(td);
    return td;
  }

  function statusClass(status) {
    return "status-" + String(status).charAt(0) + "xx";
  }

  function pretty(value) {
    return typeof value === "string" ? value : JSON.stringify(value, null, 2);
  }

  async function showDetail(id, row) {
    document.querySelectorAll("tr.request.selected").forEach((r) => r.classList.remove("selected"));
    row.classList.add("selected");
    try {
      const request = await call("GET", "/console/api/requests/" + id);
      $("detail-title").textContent = request.method + " " + request.path + (request.query ? "?" + request.query : "") +
        " → " + request.status;
      $("detail-request-headers").textContent = pretty(request.request_headers);
      $("detail-request-body").textContent = pretty(request.request_body);
      $("detail-response-body").textContent = pretty(request.response_body);
      $("request-detail").hidden = false;
    } catch (error) {
      $("status-line").textContent = say("failed", { message: error.message });
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
        cell(row, "request-at", request.at);
        cell(row, "request-method", request.method);
        cell(row, "request-path", request.path + (request.query ? "?" + request.query : ""));
        cell(row, "request-status " + statusClass(request.status), request.status);
        cell(row, "request-latency", request.latency_ms + " ms");
        cell(row, "request-error", request.error_message);
        cell(row, "request-id", request.request_id);
        let link = "";
        if (request.reference) {
          link = document.createElement("a");
          link.className = "request-reference";
          link.href = request.reference.url;
          link.textContent = request.reference.operation_id;
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

  async function loadDeliveries(endpoint, container) {
    container.replaceChildren();
    try {
      const page = await call("GET", "/api/v3/third_party/webhook_endpoints/" + endpoint.id + "/deliveries?size=20");
      if (!page.items.length) {
        container.textContent = say("noDeliveries");
        return;
      }
      const table = document.createElement("table");
      table.className = "webhook-deliveries";
      for (const delivery of page.items) {
        const row = document.createElement("tr");
        row.className = "webhook-delivery";
        row.dataset.id = delivery.id;
        row.dataset.status = delivery.status;
        cell(row, "delivery-created", delivery.created_at);
        cell(row, "delivery-event", delivery.event_type);
        cell(row, "delivery-status", delivery.status);
        const last = delivery.attempts.length ? delivery.attempts[delivery.attempts.length - 1] : null;
        cell(row, "delivery-last", last ? (last.status_code || last.error || "") : "");
        const retry = document.createElement("button");
        retry.type = "button";
        retry.className = "delivery-retry";
        retry.textContent = say("retry");
        retry.addEventListener("click", async () => {
          try {
            await call("POST", "/api/v3/third_party/webhook_endpoints/" + endpoint.id + "/deliveries/" + delivery.id + "/retry");
            $("webhooks-status").textContent = say("retried");
            await loadDeliveries(endpoint, container);
          } catch (error) {
            $("webhooks-status").textContent = say("failed", { message: error.message });
          }
        });
        cell(row, "delivery-actions", retry);
        table.appendChild(row);
      }
      container.appendChild(table);
    } catch (error) {
      container.textContent = say("failed", { message: error.message });
    }
  }

  async function loadWebhooks() {
    const list = $("webhook-endpoints");
    list.replaceChildren();
    try {
      const page = await call("GET", "/api/v3/third_party/webhook_endpoints?size=100");
      $("webhooks-status").textContent = page.items.length ? "" : say("noEndpoints");
      for (const endpoint of page.items) {
        const item = document.createElement("li");
        item.className = "webhook-endpoint";
        item.dataset.id = endpoint.id;
        const title = document.createElement("div");
        title.className = "webhook-endpoint-url";
        title.textContent = endpoint.url + " · " + endpoint.state + " · " + endpoint.types.join(", ");
        const show = document.createElement("button");
        show.type = "button";
        show.className = "webhook-deliveries-load";
        show.textContent = say("deliveries");
        const deliveries = document.createElement("div");
        deliveries.className = "webhook-deliveries-list";
        show.addEventListener("click", () => loadDeliveries(endpoint, deliveries));
        item.append(title, show, deliveries);
        list.appendChild(item);
      }
    } catch (error) {
      $("webhooks-status").textContent = say("failed", { message: error.message });
    }
  }

  function logout() {
    token = null;
    $("session").hidden = true;
    $("requests-section").hidden = true;
    $("webhooks").hidden = true;
    $("request-detail").hidden = true;
    $("requests-body").replaceChildren();
    $("webhook-endpoints").replaceChildren();
    $("login").hidden = false;
  }

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
  $("logout").addEventListener("click", logout);
})();
