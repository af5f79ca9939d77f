// The reference's own script: starts Swagger UI over /openapi.json, and logs in from the page's form. The token is
// kept only in this page's memory, by Swagger UI (persistAuthorization off): never in a URL, a cookie or storage.
(function () {
  "use strict";

  // The names of the document's security schemes (crate::openapi::BEARER and SYSTEM_ID).
  const BEARER = "bearer";
  const SYSTEM_ID = "system_id";

  const ui = SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    layout: "BaseLayout",
    presets: [SwaggerUIBundle.presets.apis],
    // `/docs#/{tag}/{operationId}` opens an operation: the console and the guides link to them.
    deepLinking: true,
    filter: true,
    displayOperationId: true,
    displayRequestDuration: true,
    docExpansion: "none",
    defaultModelsExpandDepth: 0,
    persistAuthorization: false,
    // Swagger UI would otherwise send the document to its public validator, another origin.
    validatorUrl: null,
  });
  // The browser test and curious integrators reach Swagger UI's API from the console, as with its stock page.
  window.ui = ui;

  const form = document.getElementById("tq-login");
  const status = document.getElementById("tq-login-status");
  const logout = document.getElementById("tq-logout");
  const header = form.dataset.systemIdHeader;

  // What Swagger UI's `preauthorizeApiKey` does, which in 5.17 looks for the schemes where OpenAPI 2 and 3.0 keep
  // them only, not in a 3.1 document. False while the document is still loading.
  function authorize(scheme, value) {
    const definition = ui.specSelectors.specJson().getIn(["components", "securitySchemes", scheme]);
    if (!definition) {
      return false;
    }
    ui.authActions.authorize({ [scheme]: { name: scheme, value: value, schema: definition.toJS() } });
    return true;
  }

  function say(text, failed) {
    status.textContent = text;
    status.className = failed ? "error" : "";
  }

  form.addEventListener("submit", async function (event) {
    event.preventDefault();
    const data = new FormData(form);
    const systemId = String(data.get("system_id") || "").trim();
    say("…", false);
    let response;
    let answer = null;
    try {
      response = await fetch("/api/v2/login", {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json", [header]: systemId },
        body: JSON.stringify({ email: data.get("email"), password: data.get("password") }),
        credentials: "omit",
        cache: "no-store",
      });
      answer = await response.json().catch(function () { return null; });
    } catch (error) {
      say(String(error), true);
      return;
    }
    if (!response.ok || !answer || !answer.access_token) {
      const message = answer && answer.error && answer.error.message;
      say(message || "HTTP " + response.status, true);
      return;
    }
    if (!authorize(SYSTEM_ID, systemId) || !authorize(BEARER, answer.access_token)) {
      say("The reference is still loading: log in again in a moment.", true);
      return;
    }
    logout.hidden = false;
    const society = answer.society ? answer.society.legalName + ", " : "";
    say("Logged in: " + society + "until " + answer.expiration_datetime + ". Try it out sends the token.", false);
  });

  logout.addEventListener("click", function () {
    ui.authActions.logout([BEARER, SYSTEM_ID]);
    logout.hidden = true;
    say("Logged out.", false);
  });
})();
