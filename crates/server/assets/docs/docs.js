// The reference's own script: starts Swagger UI over /openapi.json in the reader's language, switches that language,
// searches operations by path, summary and words, and logs in from the page's form. The token is kept only in this
// page's memory, by Swagger UI (persistAuthorization off): never in a URL, a cookie or storage.
(function () {
  "use strict";

  // The names of the document's security schemes (crate::openapi::BEARER and SYSTEM_ID).
  const BEARER = "bearer";
  const SYSTEM_ID = "system_id";
  const LANGUAGES = ["es", "pt", "en"];

  // The page's own words; Swagger UI's (Try it out, Parameters…) stay its own English.
  const WORDS = {
    es: {
      title: "API de integración de terceros",
      heading: "API de integración de terceros",
      guides: "Guías",
      language: "Idioma",
      email: "Email",
      password: "Contraseña",
      login: "Iniciar sesión",
      logout: "Cerrar sesión",
      search: "Buscar por ruta, resumen o palabras (p. ej. work_orders)",
      loading: "La referencia todavía está cargando: vuelva a iniciar sesión en un momento.",
      loggedIn: function (society, until) {
        return "Sesión iniciada: " + society + "hasta " + until + ". «Try it out» envía el token.";
      },
      loggedOut: "Sesión cerrada.",
    },
    pt: {
      title: "API de integração de terceiros",
      heading: "API de integração de terceiros",
      guides: "Guias",
      language: "Idioma",
      email: "E-mail",
      password: "Senha",
      login: "Entrar",
      logout: "Sair",
      search: "Buscar por caminho, resumo ou palavras (p. ex. work_orders)",
      loading: "A referência ainda está carregando: entre de novo em um instante.",
      loggedIn: function (society, until) {
        return "Sessão iniciada: " + society + "até " + until + ". «Try it out» envia o token.";
      },
      loggedOut: "Sessão encerrada.",
    },
    en: {
      title: "Third-party integration API: reference",
      heading: "Third-party integration API",
      guides: "Guides",
      language: "Language",
      email: "Email",
      password: "Password",
      login: "Log in",
      logout: "Log out",
      search: "Search by path, summary or words (e.g. work_orders)",
      loading: "The reference is still loading: log in again in a moment.",
      loggedIn: function (society, until) {
        return "Logged in: " + society + "until " + until + ". Try it out sends the token.";
      },
      loggedOut: "Logged out.",
    },
  };

  // `?lang=` of the page's address, else the first of the browser's languages we write, else English.
  function initialLanguage() {
    const asked = new URLSearchParams(window.location.search).get("lang");
    if (LANGUAGES.includes(asked)) {
      return asked;
    }
    const preferred = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language];
    for (const tag of preferred) {
      const primary = String(tag || "").toLowerCase().split("-")[0];
      if (LANGUAGES.includes(primary)) {
        return primary;
      }
    }
    return "en";
  }

  function documentUrl(lang) {
    return "/openapi.json?lang=" + lang;
  }

  // What a search matches: small letters without accents, and without what separates words in names, so that
  // `work_orders`, `work orders` and `workOrders` are one search.
  function squash(text) {
    return String(text || "")
      .normalize("NFD")
      .replace(/[\u0300-\u036f]/g, "")
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "");
  }

  // An operation's description without its code samples, which every operation has alike.
  function prose(description) {
    const text = String(description || "");
    const samples = text.search(/\*\*[^*\n]+\*\*\n\ncurl:\n\n```/);
    return samples < 0 ? text : text.slice(0, samples);
  }

  // Swagger UI's own filter matches tag names only: this one keeps, in every tag, the operations whose path, method,
  // operation id, summary, description or tag hold every word of the search.
  function SearchPlugin() {
    return {
      fn: {
        opsFilter: function (taggedOps, phrase) {
          const words = String(phrase || "").split(/\s+/).map(squash).filter(Boolean);
          if (!words.length) {
            return taggedOps;
          }
          return taggedOps
            .map(function (tagObj, tag) {
              const operations = tagObj.get("operations").filter(function (op) {
                const operation = op.get("operation");
                const haystack = squash(
                  [
                    op.get("path"),
                    op.get("method"),
                    tag,
                    operation.get("operationId"),
                    operation.get("summary"),
                    prose(operation.get("description")),
                  ].join(" ")
                );
                return words.every(function (word) { return haystack.includes(word); });
              });
              return tagObj.set("operations", operations);
            })
            .filter(function (tagObj) { return tagObj.get("operations").size > 0; });
        },
      },
    };
  }

  let lang = initialLanguage();

  const ui = SwaggerUIBundle({
    url: documentUrl(lang),
    dom_id: "#swagger-ui",
    layout: "BaseLayout",
    presets: [SwaggerUIBundle.presets.apis],
    plugins: [SearchPlugin],
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
  const chooser = document.getElementById("tq-lang");
  const header = form.dataset.systemIdHeader;

  // Swagger UI draws its search box anew at times: give it our placeholder whenever it appears.
  function labelSearch() {
    const box = document.querySelector("input.operation-filter-input");
    if (box && box.placeholder !== WORDS[lang].search) {
      box.placeholder = WORDS[lang].search;
      box.setAttribute("aria-label", WORDS[lang].search);
    }
  }
  new MutationObserver(labelSearch).observe(document.getElementById("swagger-ui"), { childList: true, subtree: true });

  // The page's own words in `lang`; the guides' link leads to that language's guides.
  function speak() {
    const words = WORDS[lang];
    document.documentElement.lang = lang;
    document.title = words.title;
    document.querySelectorAll("[data-words]").forEach(function (element) {
      element.textContent = words[element.dataset.words];
    });
    document.getElementById("tq-guides").href = "/docs/guides/" + lang;
    chooser.value = lang;
    labelSearch();
  }
  speak();

  // A new language: the page's words, the address (`?lang=`, the deep link kept), and the document, reloaded in place
  // so that a log-in and the search stay.
  chooser.addEventListener("change", function () {
    if (!LANGUAGES.includes(chooser.value)) {
      return;
    }
    lang = chooser.value;
    const address = new URL(window.location.href);
    address.searchParams.set("lang", lang);
    window.history.replaceState(null, "", address.pathname + address.search + address.hash);
    speak();
    ui.specActions.updateUrl(documentUrl(lang));
    ui.specActions.download(documentUrl(lang));
  });

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

  // `state` names the outcome for tests and styles alike, whatever the language: `pending`, `logged-in`,
  // `logged-out` or `failed`.
  function say(text, state) {
    status.textContent = text;
    status.className = state === "failed" ? "error" : "";
    status.dataset.state = state;
  }

  form.addEventListener("submit", async function (event) {
    event.preventDefault();
    const data = new FormData(form);
    const systemId = String(data.get("system_id") || "").trim();
    say("…", "pending");
    let response;
    let answer = null;
    try {
      response = await fetch("/api/v2/login", {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          Accept: "application/json",
          "Accept-Language": lang,
          [header]: systemId,
        },
        body: JSON.stringify({ email: data.get("email"), password: data.get("password") }),
        credentials: "omit",
        cache: "no-store",
      });
      answer = await response.json().catch(function () { return null; });
    } catch (error) {
      say(String(error), "failed");
      return;
    }
    if (!response.ok || !answer || !answer.access_token) {
      const message = answer && answer.error && answer.error.message;
      say(message || "HTTP " + response.status, "failed");
      return;
    }
    if (!authorize(SYSTEM_ID, systemId) || !authorize(BEARER, answer.access_token)) {
      say(WORDS[lang].loading, "failed");
      return;
    }
    logout.hidden = false;
    const society = answer.society ? answer.society.legalName + ", " : "";
    say(WORDS[lang].loggedIn(society, answer.expiration_datetime), "logged-in");
  });

  logout.addEventListener("click", function () {
    ui.authActions.logout([BEARER, SYSTEM_ID]);
    logout.hidden = true;
    say(WORDS[lang].loggedOut, "logged-out");
  });
})();
