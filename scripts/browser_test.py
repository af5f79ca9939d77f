"""What an integrator does in a real browser, step by step, against a running demo server.

Run by scripts/check-docs (which starts the server, Chromium's driver and this file's venv):

    browser_test.py BASE_URL ARTIFACTS_DIR

Each step is a function taking the shared `Session`, listed in `STEPS` in order; a step that fails leaves a
screenshot and the page's HTML under ARTIFACTS_DIR, named after it, and stops the run. To add a step, write a
function and append it to `STEPS`.
"""

import http.server
import json
import os
import sys
import threading
import time
import traceback
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait

WAIT = 60
# The demo's documented integrator account (docs/sandbox.md), which the console's log-in form is given.
DEMO_EMAIL = "integrador@lapampa.com.ar"
DEMO_PASSWORD = "LaPampa-2026"
# Chromium's flags for a loaded machine with no network, as the previous --dump-dom check used.
CHROMIUM_FLAGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1400,1000",
]


class Failed(Exception):
    """A step found the page not doing what it promises."""


class Session:
    """The browser, the server's address, and what the steps learn and hand on."""

    def __init__(self, base, artifacts, profile):
        self.base = base.rstrip("/")
        self.artifacts = artifacts
        options = Options()
        options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
        for flag in CHROMIUM_FLAGS:
            options.add_argument(flag)
        options.add_argument(f"--user-data-dir={profile}")
        # The performance log holds every request the page made (Network.requestWillBeSent), the browser log its
        # console, Content-Security-Policy refusals included.
        options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
        service = Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
        self.driver = webdriver.Chrome(service=service, options=options)
        self.driver.set_page_load_timeout(WAIT)
        self.document = None
        self.requested = []
        self.console = []

    def wait(self, condition, what, timeout=WAIT):
        try:
            return WebDriverWait(self.driver, timeout).until(condition)
        except Exception as error:
            raise Failed(f"waited {timeout}s for {what}") from error

    def api(self, method, path, body=None, token=None):
        """A call to the API itself, beside the browser: the status and the decoded answer."""
        headers = {"Accept": "application/json", "X-SVC-SYSTEM-ID": "8"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(self.base + path, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    def collect_logs(self):
        """Drains the browser's logs into `requested` (every URL asked for) and `console`."""
        for entry in self.driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message.get("method") == "Network.requestWillBeSent":
                self.requested.append(message["params"]["request"]["url"])
        self.console.extend(self.driver.get_log("browser"))

    def operation(self, operation_id):
        """The opened Swagger UI block of `operation_id`, its tag expanded and its block opened if they were not."""
        tag = None
        for item in self.document["paths"].values():
            for operation in item.values():
                if operation.get("operationId") == operation_id:
                    tag = operation["tags"][0]
        if tag is None:
            raise Failed(f"the document has no operation {operation_id}")
        block_xpath = f"//div[contains(@class,'opblock ') and contains(@id,'-{operation_id}')]"
        if not self.driver.find_elements(By.XPATH, block_xpath):
            section = self.wait(
                EC.element_to_be_clickable((By.CSS_SELECTOR, f"h3.opblock-tag[data-tag='{tag}']")),
                f"the tag {tag}",
            )
            section.click()
        block = self.wait(EC.presence_of_element_located((By.XPATH, block_xpath)), f"the block of {operation_id}")
        if "is-open" not in block.get_attribute("class"):
            self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", block)
            block.find_element(By.CSS_SELECTOR, ".opblock-summary").click()
        self.wait(lambda _: "is-open" in block.get_attribute("class"), f"{operation_id} opened")
        return block

    def try_it_out(self, block, operation_id, parameters=None, body=None):
        """Runs try-it-out on `block`: the status Swagger UI shows, and the answer's text."""
        button = self.wait(
            lambda _: block.find_element(By.CSS_SELECTOR, "button.try-out__btn"), f"{operation_id}'s Try it out"
        )
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", button)
        if "cancel" not in button.get_attribute("class"):
            button.click()
        # Swagger UI fills every field in with the document's example (page 2, filters from a date on): keep only
        # the parameters asked for.
        parameters = parameters or {}
        self.wait(lambda _: block.find_elements(By.CSS_SELECTOR, "tr[data-param-name] input, tr[data-param-name] select") or True, "the parameters")
        for row in block.find_elements(By.CSS_SELECTOR, "tr[data-param-name]"):
            name = row.get_attribute("data-param-name")
            for field in row.find_elements(By.CSS_SELECTOR, "input"):
                field.send_keys(Keys.CONTROL, "a")
                field.send_keys(Keys.DELETE)
                if name in parameters:
                    field.send_keys(str(parameters[name]))
            for field in row.find_elements(By.CSS_SELECTOR, "select"):
                Select(field).select_by_index(0)
        if body is not None:
            area = self.wait(
                lambda _: block.find_element(By.CSS_SELECTOR, "textarea.body-param__text"), "the body field"
            )
            # Typing thousands of characters key by key is slow on a loaded machine: set the value as React would
            # see it from typing, then one real key stroke for its change event.
            self.driver.execute_script(
                "const setter = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value').set;"
                "setter.call(arguments[0], arguments[1]);"
                "arguments[0].dispatchEvent(new Event('input', {bubbles: true}));",
                area,
                json.dumps(body, indent=2),
            )
        block.find_element(By.CSS_SELECTOR, "button.execute").click()
        status = self.wait(
            lambda _: block.find_element(
                By.CSS_SELECTOR, ".live-responses-table .response .response-col_status"
            ).text.strip()
            or False,
            f"{operation_id}'s answer",
        )
        text = block.find_element(
            By.CSS_SELECTOR, ".live-responses-table tbody .response .response-col_description"
        ).get_attribute("textContent")
        return status.split()[0], text


def load_the_reference(session):
    """/docs opens on a deep link to the plots list, with every tag listed and the search box."""
    status, document = session.api("GET", "/openapi.json")
    if status != 200:
        raise Failed(f"/openapi.json answered {status}")
    session.document = document
    tag = next(
        item["get"]["tags"][0] for item in document["paths"].values() if item.get("get", {}).get("operationId") == "listPlotsAlias"
    )
    session.driver.get(f"{session.base}/docs#/{urllib.parse.quote(tag)}/listPlotsAlias")
    session.wait(EC.presence_of_element_located((By.CSS_SELECTOR, "h3.opblock-tag")), "Swagger UI's tags")
    session.wait(
        EC.presence_of_element_located((By.CSS_SELECTOR, "div.opblock.is-open[id$='-listPlotsAlias']")),
        "the deep link to open GET /api/v2/plots",
    )
    session.wait(EC.presence_of_element_located((By.CSS_SELECTOR, "input.operation-filter-input")), "the search box")
    tags = {element.get_attribute("data-tag") for element in session.driver.find_elements(By.CSS_SELECTOR, "h3.opblock-tag")}
    documented = {operation["tags"][0] for item in document["paths"].values() for operation in item.values()}
    if tags != documented:
        raise Failed(f"the page lists the tags {sorted(tags)}, the document {sorted(documented)}")


def log_in_from_the_page(session):
    """The demo's pre-filled form logs in; Swagger UI then holds the token and the system id, in memory only."""
    session.driver.find_element(By.ID, "tq-login-submit").click()
    session.wait(
        lambda driver: driver.find_element(By.ID, "tq-login-status").get_attribute("data-state") == "logged-in",
        "the log-in to succeed",
    )
    authorized = session.driver.execute_script("return window.ui.authSelectors.authorized().toJS();")
    token = authorized.get("bearer", {}).get("value")
    if not token or authorized.get("system_id", {}).get("value") != "8":
        raise Failed(f"Swagger UI holds no token and system id: {list(authorized)}")
    session.token = token
    kept = session.driver.execute_script(
        "return [JSON.stringify(localStorage), JSON.stringify(sessionStorage), document.cookie, location.href];"
    )
    if any(token in place for place in kept) or kept[0] != "{}" or kept[1] != "{}" or kept[2]:
        raise Failed(f"the token or something else was kept outside the page's memory: {kept}")


def try_a_list(session):
    """Try-it-out on GET /api/v2/plots answers 200 with items: the page sent the headers itself."""
    block = session.operation("listPlotsAlias")
    status, text = session.try_it_out(block, "listPlotsAlias")
    if status != "200" or '"items"' not in text or '"id"' not in text:
        raise Failed(f"GET /api/v2/plots through try-it-out: {status} {text[:300]}")


def patch_a_work_order(session):
    """GET a work order, then PATCH it back changed through try-it-out; Swagger UI shows the success status."""
    status, page = session.api("GET", "/api/v3/third_party/work_orders?size=20", token=session.token)
    orders = [order for order in (page or {}).get("items", []) if not order["header"].get("is_read_only")]
    if status != 200 or not orders:
        raise Failed(f"no writable work order to PATCH: {status}")
    order = orders[0]
    local_id = order["header"]["local_id"]
    header = order["header"]
    body = {
        "header": {
            key: header[key]
            for key in ["external_id", "system_id", "name", "date", "voucher_date", "state", "extra_fields"]
        },
        "supplies": [
            {key: line[key] for key in ["local_id", "cultivation", "formulated", "area_applied", "total_applied", "date", "state"]}
            for line in order["supplies"]
        ],
        "labours": [
            {
                key: line[key]
                for key in ["local_id", "cultivation", "labour_type", "area_applied", "contractors", "machines", "applicators", "date", "state"]
            }
            for line in order["labours"]
        ],
    }
    body["header"]["name"] = header["name"].split(" (browser test")[0] + f" (browser test {int(time.time())})"
    operation_id = "replaceWorkOrder"
    expected = next(
        status
        for item in session.document["paths"].values()
        for method, operation in item.items()
        if operation.get("operationId") == operation_id
        for status in operation["responses"]
        if status.startswith("2")
    )
    block = session.operation(operation_id)
    status, text = session.try_it_out(block, operation_id, parameters={"localId": local_id}, body=body)
    if status != expected:
        raise Failed(f"PATCH of work order {local_id} through try-it-out: {status} (expected {expected}) {text[:500]}")
    status, saved = session.api("GET", f"/api/v3/third_party/work_orders/{local_id}", token=session.token)
    if saved["header"]["name"] != body["header"]["name"]:
        raise Failed(f"the PATCH answered {expected} but the order reads {saved['header']['name']!r}")
    session.patched = (local_id, expected, operation_id)


def shown_operations(session):
    """Every operation the page shows now, as `METHOD path`, each tag it lists opened."""
    for tag in session.driver.find_elements(By.CSS_SELECTOR, "h3.opblock-tag"):
        section = tag.find_element(By.XPATH, "./ancestor::div[contains(@class,'opblock-tag-section')]")
        if "is-open" not in section.get_attribute("class"):
            session.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", tag)
            tag.click()
    shown = set()
    for block in session.driver.find_elements(By.CSS_SELECTOR, "div.opblock"):
        method = block.find_element(By.CSS_SELECTOR, ".opblock-summary-method").text.strip().upper()
        path = block.find_element(By.CSS_SELECTOR, ".opblock-summary-path").get_attribute("data-path")
        shown.add(f"{method} {path}")
    return shown


def search_by_path(session):
    """Typing `work_orders` in the search box shows every work-order operation (by path: `/work_orders`,
    `/workOrders`), and not the others of their tags or the server's own routes."""
    box = session.wait(EC.element_to_be_clickable((By.CSS_SELECTOR, "input.operation-filter-input")), "the search box")
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys("work_orders")
    session.wait(
        lambda driver: driver.find_elements(By.CSS_SELECTOR, "h3.opblock-tag")
        and not driver.find_elements(By.XPATH, "//*[contains(text(), 'No operations defined in spec')]"),
        "the operations the search finds",
    )
    shown = shown_operations(session)
    squash = lambda text: "".join(c for c in text.lower() if c.isalnum())
    expected = {
        f"{method.upper()} {path}"
        for path, item in session.document["paths"].items()
        for method in item
        if "workorders" in squash(path)
    }
    if not expected or not expected <= shown:
        raise Failed(f"the search for work_orders shows {sorted(shown)}, not every one of {sorted(expected)}")
    if "GET /health" in shown or "GET /api/v3/third_party/farmers" in shown:
        raise Failed(f"the search for work_orders shows unrelated operations: {sorted(shown)}")
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(Keys.DELETE)


def switch_the_reference_to_portuguese(session):
    """The language selector reloads the document in Portuguese and puts the page's own words in Portuguese; the
    log-in stays."""
    status, portuguese = session.api("GET", "/openapi.json?lang=pt")
    if status != 200:
        raise Failed(f"/openapi.json?lang=pt answered {status}")
    summary = portuguese["paths"]["/health"]["get"]["summary"]
    english = session.document["paths"]["/health"]["get"]["summary"]
    Select(session.driver.find_element(By.ID, "tq-lang")).select_by_value("pt")
    session.wait(lambda driver: driver.execute_script("return document.documentElement.lang;") == "pt", "lang=pt")
    session.wait(
        lambda driver: driver.find_element(By.ID, "tq-login-submit").text == "Entrar", "the log-in button in Portuguese"
    )
    session.wait(EC.element_to_be_clickable((By.CSS_SELECTOR, "h3.opblock-tag[data-tag='Operations of the server']")), "the server's tag").click()
    shown = session.wait(
        lambda driver: [
            element.text
            for element in driver.find_elements(By.CSS_SELECTOR, "div.opblock .opblock-summary-description")
            if element.text == summary
        ],
        f"the health check's summary in Portuguese, {summary!r}",
    )
    if summary == english or not shown:
        raise Failed(f"the Portuguese document's health summary is {summary!r} (English {english!r})")
    if "lang=pt" not in session.driver.current_url:
        raise Failed(f"the page's address does not keep the language: {session.driver.current_url}")
    authorized = session.driver.execute_script("return window.ui.authSelectors.authorized().toJS();")
    if authorized.get("bearer", {}).get("value") != session.token:
        raise Failed("switching the language logged out")


def switch_a_guide_to_portuguese(session):
    """From the reference to the guides, into the work-orders guide, and over to its Portuguese version."""
    session.driver.get(f"{session.base}/docs")
    session.wait(EC.element_to_be_clickable((By.ID, "tq-guides")), "the guides' link").click()
    session.wait(
        EC.element_to_be_clickable((By.CSS_SELECTOR, "ol.guides a[href$='/work-orders']")), "the work-orders guide"
    ).click()
    session.wait(
        EC.element_to_be_clickable((By.CSS_SELECTOR, "nav.languages a[hreflang='pt']")), "the switch to Portuguese"
    ).click()
    session.wait(lambda driver: driver.current_url.endswith("/docs/guides/pt/work-orders"), "the Portuguese guide")
    heading = session.driver.find_element(By.TAG_NAME, "h1").text
    language = session.driver.execute_script("return document.documentElement.lang;")
    if language != "pt" or not heading.startswith("Ordens de serviço"):
        raise Failed(f"the switch led to a page in {language!r} titled {heading!r}")


def find_the_patch_in_the_console(session):
    """The console, logged in as the integrator, lists the PATCH made through try-it-out with its status and a link
    to its operation in the reference."""
    local_id, expected, operation_id = session.patched
    session.driver.get(f"{session.base}/console")
    session.wait(EC.element_to_be_clickable((By.ID, "login-email")), "the console's log-in form").send_keys(DEMO_EMAIL)
    session.driver.find_element(By.ID, "login-password").send_keys(DEMO_PASSWORD)
    session.driver.find_element(By.ID, "login-submit").click()
    session.wait(EC.visibility_of_element_located((By.ID, "requests-section")), "the console's requests")
    session.driver.find_element(By.ID, "filter-path").send_keys("workOrders")
    session.driver.find_element(By.ID, "filter-apply").click()
    # The console stores requests off the request path, a batch at a time: ask again until the PATCH is there.
    row_css = f"tr.request[data-method='PATCH'][data-path$='/workOrders/{local_id}']"
    deadline = time.monotonic() + WAIT
    while not session.driver.find_elements(By.CSS_SELECTOR, row_css):
        if time.monotonic() > deadline:
            raise Failed(f"the console does not list the PATCH of work order {local_id}")
        time.sleep(1)
        session.driver.find_element(By.ID, "refresh").click()
    row = session.driver.find_element(By.CSS_SELECTOR, row_css)
    status = row.get_attribute("data-status")
    reference = row.find_element(By.CSS_SELECTOR, "a.request-reference").get_attribute("href")
    if status != expected or not reference.endswith(f"/{operation_id}"):
        raise Failed(f"the console lists the PATCH with status {status} and reference {reference}")


class Receiver:
    """A webhook receiver on a loopback port (the demo allows http and loopback receivers): `/ok` answers 200 and
    `/down` 503, each with a body of its own; it counts what each path got."""

    ANSWERS = {"/ok": (200, "recebido pelo ERP"), "/down": (503, "fora do ar")}

    def __init__(self):
        self.received = {path: 0 for path in self.ANSWERS}
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                status, text = receiver.ANSWERS.get(self.path, (404, "no such path"))
                receiver.received[self.path] = receiver.received.get(self.path, 0) + 1
                body = text.encode()
                self.send_response(status)
                self.send_header("Content-Type", "text/plain; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"

    def stop(self):
        self.server.shutdown()


# The page's Portuguese words for the API's values the steps below meet.
PORTUGUESE_STATUS = {"succeeded": "entregue", "pending": "pendente", "delivering": "enviando", "failed": "falhou"}


def fresh(read, tries=20):
    """`read()`, asked again while the page replaces the elements it reads (a list it re-renders as it polls)."""
    for _ in range(tries):
        try:
            return read()
        except StaleElementReferenceException:
            time.sleep(0.2)
    return read()


def console_token(session):
    """A token of the integrator for the calls the console steps make beside the page."""
    if not getattr(session, "console_token", None):
        status, answer = session.api("POST", "/api/v2/login", {"email": DEMO_EMAIL, "password": DEMO_PASSWORD})
        if status != 200:
            raise Failed(f"the log-in beside the page answered {status}: {answer}")
        session.console_token = answer["access_token"]
    return session.console_token


def switch_the_console_to_portuguese(session):
    """The console's language selector puts its words in Portuguese and keeps the language in the address; the
    session stays."""
    Select(session.driver.find_element(By.ID, "lang")).select_by_value("pt")
    session.wait(lambda driver: driver.execute_script("return document.documentElement.lang;") == "pt", "lang=pt")
    session.wait(lambda driver: driver.find_element(By.ID, "refresh").text == "Atualizar", "the words in Portuguese")
    if "lang=pt" not in session.driver.current_url:
        raise Failed(f"the console's address does not keep the language: {session.driver.current_url}")
    if not session.driver.find_element(By.ID, "requests-section").is_displayed():
        raise Failed("switching the language logged the console out")


def request_row(session, css, what):
    """The row of the requests list matching `css`, the list refreshed until it is there."""
    deadline = time.monotonic() + WAIT
    while not session.driver.find_elements(By.CSS_SELECTOR, css):
        if time.monotonic() > deadline:
            raise Failed(f"the console does not list {what}")
        time.sleep(1)
        session.driver.find_element(By.ID, "refresh").click()
    return session.driver.find_element(By.CSS_SELECTOR, css)


def send_a_request_again_from_the_console(session):
    """"Enviar novamente" on the logged PATCH shows the new answer, and the request sent again shows in the log with
    its own request id; a request whose query held a secret cannot be sent again, and the page says why."""
    local_id, expected, _ = session.patched
    row_css = f"tr.request[data-method='PATCH'][data-path$='/workOrders/{local_id}']"
    request_row(session, row_css, f"the PATCH of work order {local_id}").find_element(By.CSS_SELECTOR, ".request-method").click()
    resend = session.wait(EC.element_to_be_clickable((By.ID, "detail-resend")), "the enabled send-again button")
    if resend.text != "Enviar novamente":
        raise Failed(f"the send-again button reads {resend.text!r}")
    resend.click()
    session.wait(EC.visibility_of_element_located((By.ID, "resend-result")), "the answer of the request sent again")
    status = session.driver.find_element(By.ID, "resend-status").text
    request_id = session.driver.find_element(By.ID, "resend-request-id").text
    if status != expected or not request_id:
        raise Failed(f"sent again, the PATCH answered {status} (expected {expected}), request id {request_id!r}")
    again = request_row(session, f"tr.request[data-request-id='{request_id}']", f"the PATCH sent again ({request_id})")
    if again.get_attribute("data-method") != "PATCH" or again.get_attribute("data-status") != expected:
        raise Failed(f"the request sent again is logged as {again.get_attribute('data-method')} {again.get_attribute('data-status')}")

    secret_status, _ = session.api("GET", "/api/v3/third_party/farmers?size=1&api_key=browser-test", token=console_token(session))
    path = session.driver.find_element(By.ID, "filter-path")
    path.send_keys(Keys.CONTROL, "a")
    path.send_keys("farmers")
    session.driver.find_element(By.ID, "filter-apply").click()
    deadline = time.monotonic() + WAIT
    while True:
        rows = [
            row
            for row in session.driver.find_elements(By.CSS_SELECTOR, "tr.request[data-path='/api/v3/third_party/farmers']")
            if "api_key=" in row.find_element(By.CSS_SELECTOR, ".request-path").text
        ]
        if rows:
            break
        if time.monotonic() > deadline:
            raise Failed(f"the console does not list the farmers read with an API key (it answered {secret_status})")
        time.sleep(1)
        session.driver.find_element(By.ID, "refresh").click()
    rows[0].find_element(By.CSS_SELECTOR, ".request-method").click()
    session.wait(
        lambda driver: not driver.find_element(By.ID, "detail-resend").is_enabled()
        and "segredo" in driver.find_element(By.ID, "detail-resend-note").text,
        "the send-again button disabled, and why, for a request whose secret was redacted",
    )


def delivery_rows(session, endpoint_id):
    """The endpoint's deliveries as the console lists them, once it has some; answers its list element."""
    item = session.wait(
        EC.presence_of_element_located((By.CSS_SELECTOR, f"li.webhook-endpoint[data-id='{endpoint_id}']")),
        f"webhook endpoint {endpoint_id} in the console",
    )
    item.find_element(By.CSS_SELECTOR, "button.webhook-deliveries-load").click()
    session.wait(
        lambda _: item.find_elements(By.CSS_SELECTOR, "tr.webhook-delivery"), f"endpoint {endpoint_id}'s deliveries"
    )
    return item


def check_attempts(session, item, delivery_id, status_code, answer):
    """Opens a delivery's attempts and checks each shows its time, status and latency, and the last the receiver's
    answer."""
    fresh(lambda: read_attempts(session, item, delivery_id, status_code, answer))


def read_attempts(session, item, delivery_id, status_code, answer):
    row = item.find_element(By.CSS_SELECTOR, f"tr.webhook-delivery[data-id='{delivery_id}']")
    if not item.find_element(By.CSS_SELECTOR, f"tr.delivery-detail[data-id='{delivery_id}']").is_displayed():
        row.find_element(By.CSS_SELECTOR, "button.delivery-open").click()
    detail = session.wait(
        EC.visibility_of_element_located((By.CSS_SELECTOR, f"tr.delivery-detail[data-id='{delivery_id}']")),
        f"delivery {delivery_id}'s attempts",
    )
    attempts = detail.find_elements(By.CSS_SELECTOR, "tr.delivery-attempt")
    if not attempts or len(attempts) != int(row.get_attribute("data-attempts")):
        raise Failed(f"delivery {delivery_id} shows {len(attempts)} attempts, its row counts {row.get_attribute('data-attempts')}")
    last = attempts[-1]
    shown = {name: last.find_element(By.CSS_SELECTOR, f".attempt-{name}").text for name in ["at", "status", "latency", "answer"]}
    if not shown["at"] or shown["status"] != str(status_code) or not shown["latency"].endswith(" ms") or answer not in shown["answer"]:
        raise Failed(f"delivery {delivery_id}'s last attempt shows {shown}, expected {status_code} and {answer!r}")


def see_a_deliverys_attempts_in_the_console(session):
    """Two endpoints, one answered 200 and one 503, and a change both want: in Portuguese the console shows each
    endpoint's state and each delivery's status in Portuguese, the attempts with their time, status, latency and
    the receiver's answer, and the pending delivery's next retry."""
    token = console_token(session)
    session.receiver = Receiver()
    endpoints = {}
    for path in ["/ok", "/down"]:
        status, endpoint = session.api(
            "POST", "/api/v3/third_party/webhook_endpoints",
            {"url": session.receiver.base + path, "types": ["applicator.*"], "description": f"browser test {path}"},
            token=token,
        )
        if status != 201:
            raise Failed(f"registering a receiver answered {status}: {endpoint}")
        endpoints[path] = endpoint["id"]
    session.endpoints = endpoints
    status, created = session.api("POST", "/api/v2/third_party/applicators", {"name": f"Navegador {int(time.time())}"}, token=token)
    if status != 201:
        raise Failed(f"the change the receivers want answered {status}: {created}")
    deadline = time.monotonic() + WAIT
    while session.receiver.received["/ok"] < 1 or session.receiver.received["/down"] < 1:
        if time.monotonic() > deadline:
            raise Failed(f"the receivers got {session.receiver.received}")
        time.sleep(0.5)
    session.driver.find_element(By.ID, "webhooks-refresh").click()
    ok = delivery_rows(session, endpoints["/ok"])
    state = ok.find_element(By.CSS_SELECTOR, ".webhook-endpoint-state").text
    if state != "ativado":
        raise Failed(f"the endpoint's state reads {state!r}, not 'ativado'")
    deadline = time.monotonic() + WAIT
    while fresh(lambda: ok.find_element(By.CSS_SELECTOR, "tr.webhook-delivery").get_attribute("data-status")) != "succeeded":
        if time.monotonic() > deadline:
            raise Failed("the delivery to the receiver answering 200 never succeeded")
        time.sleep(1)
        ok.find_element(By.CSS_SELECTOR, "button.webhook-deliveries-load").click()
    row = lambda: ok.find_element(By.CSS_SELECTOR, "tr.webhook-delivery")
    session.delivery, label = fresh(lambda: (row().get_attribute("data-id"), row().find_element(By.CSS_SELECTOR, ".delivery-status").text))
    if label != PORTUGUESE_STATUS["succeeded"]:
        raise Failed(f"a succeeded delivery reads {label!r}, not {PORTUGUESE_STATUS['succeeded']!r}")
    check_attempts(session, ok, session.delivery, 200, "recebido pelo ERP")

    down = delivery_rows(session, endpoints["/down"])
    row = lambda: down.find_element(By.CSS_SELECTOR, "tr.webhook-delivery")
    delivery, status, label, next_retry = fresh(
        lambda: (
            row().get_attribute("data-id"),
            row().get_attribute("data-status"),
            row().find_element(By.CSS_SELECTOR, ".delivery-status").text,
            row().find_element(By.CSS_SELECTOR, ".delivery-next-attempt").text,
        )
    )
    if label != PORTUGUESE_STATUS.get(status) or (status == "pending" and not next_retry[:4].isdigit()):
        raise Failed(f"the failing delivery is {status}, reads {label!r}, next retry {next_retry!r}")
    check_attempts(session, down, delivery, 503, "fora do ar")


def redeliver_from_the_console(session):
    """"Reenviar" on the succeeded delivery: the receiver gets it again and the console shows the new attempt."""
    ok = session.driver.find_element(By.CSS_SELECTOR, f"li.webhook-endpoint[data-id='{session.endpoints['/ok']}']")
    row_css = f"tr.webhook-delivery[data-id='{session.delivery}']"
    before = int(ok.find_element(By.CSS_SELECTOR, row_css).get_attribute("data-attempts"))
    received = session.receiver.received["/ok"]
    ok.find_element(By.CSS_SELECTOR, f"{row_css} button.delivery-retry").click()
    shown = lambda: [ok.find_element(By.CSS_SELECTOR, row_css).get_attribute(name) for name in ["data-attempts", "data-status"]]
    session.wait(lambda _: fresh(shown) == [str(before + 1), "succeeded"], "the redelivery's attempt in the console")
    if session.receiver.received["/ok"] != received + 1:
        raise Failed(f"the receiver got {session.receiver.received['/ok'] - received} redeliveries")
    check_attempts(session, ok, session.delivery, 200, "recebido pelo ERP")
    for endpoint in session.endpoints.values():
        session.api("DELETE", f"/api/v3/third_party/webhook_endpoints/{endpoint}", token=console_token(session))
    session.receiver.stop()


def nothing_from_elsewhere(session):
    """Every request the pages (reference, guides, console) made went to their own origin; no Content-Security-Policy refusal on the console."""
    session.collect_logs()
    origin = urllib.parse.urlsplit(session.base)
    # Only what goes over a network counts: Chromium's own pages (chrome://, its empty first tab) and data: URLs
    # do not leave the machine.
    elsewhere = [
        url
        for url in session.requested
        if urllib.parse.urlsplit(url).scheme in ("http", "https", "ws", "wss", "ftp")
        and urllib.parse.urlsplit(url)[:2] != origin[:2]
    ]
    if elsewhere:
        raise Failed(f"the page asked another origin for {elsewhere}")
    if not any("/openapi.json" in url for url in session.requested):
        raise Failed(f"the network log is empty or incomplete: {session.requested}")
    refused = [entry["message"] for entry in session.console if "Content Security Policy" in entry["message"]]
    if refused:
        raise Failed(f"the policy refused what the page needs: {refused}")
    with urllib.request.urlopen(session.base + "/docs", timeout=30) as response:
        policy = response.headers.get("Content-Security-Policy", "")
    if "default-src 'none'" not in policy or "script-src 'self';" not in policy or "http" in policy:
        raise Failed(f"/docs's policy lets it load from elsewhere: {policy!r}")


STEPS = [
    load_the_reference,
    log_in_from_the_page,
    try_a_list,
    patch_a_work_order,
    search_by_path,
    switch_the_reference_to_portuguese,
    switch_a_guide_to_portuguese,
    find_the_patch_in_the_console,
    switch_the_console_to_portuguese,
    send_a_request_again_from_the_console,
    see_a_deliverys_attempts_in_the_console,
    redeliver_from_the_console,
    nothing_from_elsewhere,
]


def keep_artifacts(session, name):
    os.makedirs(session.artifacts, exist_ok=True)
    try:
        session.driver.save_screenshot(os.path.join(session.artifacts, f"{name}.png"))
        with open(os.path.join(session.artifacts, f"{name}.html"), "w", encoding="utf-8") as file:
            file.write(session.driver.page_source)
    except Exception as error:  # The browser itself may be what failed.
        print(f"  (no screenshot: {error})", file=sys.stderr)


def main():
    base, artifacts = sys.argv[1], sys.argv[2]
    session = Session(base, artifacts, os.path.join(artifacts, "chromium-profile"))
    try:
        for step in STEPS:
            started = time.monotonic()
            try:
                step(session)
            except Exception as error:
                keep_artifacts(session, step.__name__)
                traceback.print_exc()
                print(
                    f"browser: {step.__name__} failed: {error}; screenshot and HTML in {artifacts}/{step.__name__}.*",
                    file=sys.stderr,
                )
                return 1
            print(f"browser: {step.__name__}: ok ({time.monotonic() - started:.1f}s)")
    finally:
        session.driver.quit()
    print(f"{len(STEPS)} passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
