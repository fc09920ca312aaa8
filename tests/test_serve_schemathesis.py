"""Schemathesis against ``wargym serve --http``'s OpenAPI document (issue 28): generated requests,
valid and invalid, for every route, on loopback; every answer must be one the document lists (its
status, its body's schema), and none a 5xx.  Bounded: a few examples per route and mode.

(The cases are drawn here with hypothesis rather than through schemathesis' pytest plugin, whose
parametrisation does not run under this pytest.)"""
from __future__ import annotations

import os

import pytest

schemathesis = pytest.importorskip("schemathesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402  (hypothesis comes with schemathesis)
from hypothesis.errors import Unsatisfiable  # noqa: E402
from schemathesis import GenerationMode  # noqa: E402

from wargym.serve.client import start_http  # noqa: E402

# per route and mode: ~300 requests in all, a few seconds; WARGYM_SCHEMATHESIS_EXAMPLES=200 for a longer
# run by hand (``pytest -s`` prints the cases and statuses)
MAX_EXAMPLES = int(os.environ.get("WARGYM_SCHEMATHESIS_EXAMPLES", "20"))
MODES = (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)


@pytest.fixture(scope="module")
def api():
    proc, url = start_http()
    try:
        yield url, schemathesis.openapi.from_url(f"{url}/openapi.json", wait_for_schema=60)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _has_input(operation) -> bool:
    return bool(list(operation.iter_parameters())) or bool(operation.get_request_payload_content_types())


def _operations(schema) -> list:
    return [result.ok() for result in schema.get_all_operations()]


@pytest.mark.parametrize("mode", MODES, ids=[m.value for m in MODES])
def test_every_route_answers_as_documented(api, mode):
    url, schema = api
    seen, skipped = [], []
    for operation in _operations(schema):
        if mode is GenerationMode.NEGATIVE and not _has_input(operation):
            continue  # (nothing to make invalid)

        @given(case=operation.as_strategy(generation_mode=mode))
        @settings(max_examples=MAX_EXAMPLES, deadline=None, derandomize=True, database=None,
                  suppress_health_check=list(HealthCheck))
        def check(case):
            response = case.call(base_url=url, timeout=60)
            seen.append(response.status_code)
            assert response.status_code < 500, (case.method, case.path, case.body, response.text[:300])
            # positive_data_acceptance is left out: a request that fits the schema may still break a
            # game's rules (its options, an illegal action in a history, a corrupt save), which the
            # schema cannot state; such a request gets a coded 4xx, which the other checks hold to
            case.validate_response(response, excluded_checks=[schemathesis.checks.positive_data_acceptance])
        try:
            check()
        except Unsatisfiable:  # negative mode: a route whose every input is a free string (a match id)
            assert mode is GenerationMode.NEGATIVE, operation.label
            skipped.append(operation.label)
    assert len(seen) >= 50
    print(f"schemathesis ({mode.value}): {len(seen)} cases, statuses {sorted(set(seen))}; "
          f"nothing to make invalid in {skipped}")
