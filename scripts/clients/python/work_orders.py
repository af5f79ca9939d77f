"""A plot created and a work order read, changed and written back, with a client generated from the server's document:

    openapi-python-client generate --url http://127.0.0.1:8080/openapi.json --meta setup
    pip install ./third-party-integration-api-client

Errors are told apart by their `reason`, never by their message. TRANQUERA_URL is the server (the demo's by default).
Every answer other than the one expected ends the program with an error: scripts/check-clients runs it.
"""

import os
import sys
import uuid

from third_party_integration_api_client import AuthenticatedClient, Client
from third_party_integration_api_client.api.auth import login
from third_party_integration_api_client.api.master_data import create_plot, list_establishments
from third_party_integration_api_client.api.work_orders import (
    create_work_order,
    get_work_order,
    list_work_orders,
    replace_work_order,
)
from third_party_integration_api_client.models import ErrorBody, LoginRequest, NewPlot, WorkOrder, WorkOrderWrite

BASE = os.environ.get("TRANQUERA_URL", "http://127.0.0.1:8080")
HEADERS = {"X-SVC-SYSTEM-ID": "8", "Accept-Language": "en"}


def expect(what, answer, status):
    """The answer's parsed body, when its status is the one expected; else the program ends."""
    if answer.status_code != status:
        sys.exit(f"{what}: expected {status}, got {int(answer.status_code)} {answer.content[:500]!r}")
    return answer.parsed


def refused(what, answer, status):
    """The reason of an error answer, which must have the expected status and the error envelope."""
    error = expect(what, answer, status)
    if not isinstance(error, ErrorBody):
        sys.exit(f"{what}: the answer is not the error envelope: {answer.content[:500]!r}")
    return error.error.reason


def what_to_do(reason):
    """How a program acts on a refused work-order write: by its reason, the same in every language."""
    if reason == "work_order_read_only":
        return "leave the order as it is: the platform closed it"
    if reason == "external_id_taken":
        return "look up the order that has this external_id and replace it instead"
    if reason == "version_mismatch":
        return "read the order again, and apply the change to what it is now"
    if reason == "idempotency_in_progress":
        return "retry after Retry-After seconds, with the same Idempotency-Key"
    sys.exit(f"no plan for the reason {reason!r}")


def main():
    grant = expect(
        "login",
        login.sync_detailed(
            client=Client(base_url=BASE, headers=HEADERS),
            body=LoginRequest(email="integrador@lapampa.com.ar", password="LaPampa-2026"),
        ),
        200,
    )
    client = AuthenticatedClient(base_url=BASE, headers=HEADERS, token=grant.access_token)

    # A plot, created once even when its request is sent twice (the second answer is the first one, replayed).
    establishment = expect("list establishments", list_establishments.sync_detailed(client=client), 200).items[0]
    plot = NewPlot(name="Lote del cliente Python", establishment_id=establishment.id, area=12.5)
    key = str(uuid.uuid4())
    created = expect("create a plot", create_plot.sync_detailed(client=client, body=plot, idempotency_key=key), 201)
    again = create_plot.sync_detailed(client=client, body=plot, idempotency_key=key)
    replayed = again.headers.get("Idempotent-Replayed") == "true"
    if expect("create the plot again", again, 201).id != created.id or not replayed:
        sys.exit(f"a retried create is answered the first answer: {again.content[:500]!r}")

    # Work orders: one that may be changed, one the platform closed.
    orders = []
    for page in (1, 2, 3):
        orders += expect("list work orders", list_work_orders.sync_detailed(client=client, page=page), 200).items
    editable = next(order for order in orders if not order.header.is_read_only)
    closed = next(order for order in orders if order.header.is_read_only)

    # Read, change the name, and send the whole order back as it was read, naming the version read.
    local_id = editable.header.local_id
    read = get_work_order.sync_detailed(id=local_id, client=client)
    order = expect(f"get work order {local_id}", read, 200)
    assert isinstance(order, WorkOrder)
    write = WorkOrderWrite.from_dict(order.to_dict())
    write.header.name = f"{order.header.name} (Python)"
    etag = read.headers["ETag"]
    answer = replace_work_order.sync_detailed(local_id=local_id, client=client, body=write, if_match=etag)
    if expect(f"replace work order {local_id}", answer, 200).header.name != write.header.name:
        sys.exit(f"the name was not changed: {answer.content[:500]!r}")

    # Refusals, told apart by reason: a stale version, a closed order, an external_id another order has.
    stale = replace_work_order.sync_detailed(local_id=local_id, client=client, body=write, if_match=etag)
    closed_write = WorkOrderWrite.from_dict(closed.to_dict())
    read_only = replace_work_order.sync_detailed(local_id=closed.header.local_id, client=client, body=closed_write)
    named = next(other for other in orders if other.header.external_id and other.header.local_id != local_id)
    duplicate = WorkOrderWrite.from_dict(order.to_dict())
    duplicate.header.external_id = named.header.external_id
    duplicate.supplies, duplicate.labours = [], []
    taken = create_work_order.sync_detailed(client=client, body=duplicate)
    for what, refusal, status, expected in [
        ("a stale If-Match", stale, 412, "version_mismatch"),
        ("a closed order", read_only, 409, "work_order_read_only"),
        ("a taken external_id", taken, 409, "external_id_taken"),
    ]:
        reason = refused(what, refusal, status)
        if reason != expected:
            sys.exit(f"{what}: expected the reason {expected}, got {reason}")
        print(f"python: {what} is {status} {reason}: {what_to_do(reason)}")
    print(f"python: plot {created.id} created once, work order {local_id} read, renamed and written back")


if __name__ == "__main__":
    main()
