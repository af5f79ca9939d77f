"""What an integrator does in a real browser, step by step, against a running demo server.

Run by scripts/check-docs (which starts the server, Chromium's driver and this file's venv):

    browser_test.py BASE_URL ARTIFACTS_DIR

Each step is a function taking the shared `Session`, listed in `STEPS` in order; a step that fails leaves a
screenshot and the page's HTML under ARTIFACTS_DIR, named after it, and stops the run. To add a step, write a
function and append it to `STEPS`.
"""

import json
import os
import sys
import time
import traceback
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait

WAIT = 60
# The demo's documented integrator account (README), which the console's log-in form is given.
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
        item["get"]["tags"][0] for item in document["paths"].values() if item.get("get", {}).get("operationId") == "get_api_v2_plots"
    )
    session.driver.get(f"{session.base}/docs#/{urllib.parse.quote(tag)}/get_api_v2_plots")
    session.wait(EC.presence_of_element_located((By.CSS_SELECTOR, "h3.opblock-tag")), "Swagger UI's tags")
    session.wait(
        EC.presence_of_element_located((By.CSS_SELECTOR, "div.opblock.is-open[id$='-get_api_v2_plots']")),
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
        lambda driver: driver.find_element(By.ID, "tq-login-status").text.startswith("Logged in"),
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
    block = session.operation("get_api_v2_plots")
    status, text = session.try_it_out(block, "get_api_v2_plots")
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
    operation_id = "patch_integration_api_v1_workorders_localid"
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


def switch_a_guide_to_portuguese(session):
    """From the reference to the guides, into the work-orders guide, and over to its Portuguese version."""
    session.driver.get(f"{session.base}/docs")
    session.wait(EC.element_to_be_clickable((By.CSS_SELECTOR, "a[href='/docs/guides']")), "the guides' link").click()
    session.wait(
        EC.element_to_be_clickable((By.CSS_SELECTOR, "ol.guides a[href$='/work-orders']")), "the work-orders guide"
    ).click()
    session.wait(
        EC.element_to_be_clickable((By.CSS_SELECTOR, "nav.languages a[hreflang='pt']")), "the switch to Portuguese"
    ).click()
    session.wait(lambda driver: driver.current_url.endswith("/docs/guides/pt/work-orders"), "the Portuguese guide")
    heading = session.driver.find_element(By.TAG_NAME, "h1").text
    language = session.driver.execute_script("return document.documentElement.lang;")
    if language != "pt" or not heading.startswith("Ordens de trabalho"):
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
    if not any(url.endswith("/openapi.json") for url in session.requested):
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
    switch_a_guide_to_portuguese,
    find_the_patch_in_the_console,
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
