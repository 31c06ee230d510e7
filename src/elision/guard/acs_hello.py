"""``handshake/hello`` (ACS §4): read the ClientHello in ``params.payload``, answer with a
ServerHello that ``handshake.json`` accepts (its members beside the AcsResult's, since
``response-envelope.json`` makes every result an AcsResult).

- the version is negotiated from the ClientHello's ``acs_versions_supported`` (same major and
  minor as this Guardian's 0.1.0; §3 "accept X.Y.Z matching major version", and 0.x minors
  are breaking under semver);
- ``methods_evaluated`` is what this Guardian evaluates *and* the client declared in
  ``methods_implemented``; any other hook is refused in that session with -32003;
- ``profiles_accepted`` names a profile only when the configuration meets it: ``acs-core``
  and ``acs-audit`` need the §10 baseline signature, so without a signing key the list is
  empty (README: what elision claims and what it does not implement).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from elision.guard.acs_wire import (
    ACS_VERSION,
    SESSION_REFUSED,
    SKEW_WINDOW_MS,
    UNSUPPORTED_VERSION,
    AcsError,
    short,
)

#: The hooks this Guardian evaluates, audits and answers: the ACS-Core set (conformance.md).
EVALUATED = (
    "steps/sessionStart", "steps/userMessage", "steps/agentTrigger", "steps/toolCallRequest",
    "steps/toolCallResult", "steps/agentResponse", "steps/subagentStart", "steps/sessionEnd",
)
#: Hooks that are recorded whatever the policies say (not decision-eligible, hooks.md).
AUDIT_ONLY = ("steps/sessionEnd",)
#: Methods the specification defines that this Guardian does not evaluate: -32003, not -32601.
DEFINED_ELSEWHERE = (
    "steps/turnStart", "steps/turnEnd", "steps/knowledgeRetrieval",
    "steps/memoryContextRetrieval", "steps/memoryStore", "steps/preCompact",
    "steps/postCompact", "steps/subagentStop", "steps/skillRegister", "steps/skillLoad",
    "steps/skillUnload", "agbom/snapshot", "agbom/changed",
)
#: Namespaces the specification defines (or reserves) whose methods this Guardian does not
#: evaluate.
DEFINED_PREFIXES = ("protocols/MCP/", "protocols/A2A/", "wrapped:", "trace/")


def is_defined(method: str) -> bool:
    """Whether the specification defines ``method`` (so refusing it is -32003, not -32601)."""
    return method in EVALUATED or method in DEFINED_ELSEWHERE or method.startswith(
        DEFINED_PREFIXES)


def negotiate(client: Mapping[str, Any], *, signs: bool) -> dict[str, Any]:
    """The ServerHello for a ClientHello already checked against ``handshake.json``."""
    offered = client["acs_versions_supported"]
    ours = ACS_VERSION.split(".")[:2]
    if not any(v.split(".")[:2] == ours for v in offered):
        raise AcsError(UNSUPPORTED_VERSION, f"no common ACS version: offered {short(offered)}, "
                       f"this Guardian speaks {ACS_VERSION}", "unsupported_version",
                       supported_versions=[ACS_VERSION])
    transports = client["transports_supported"]
    if "http" in transports or "https" in transports:
        transport = "http" if "http" in transports else "https"  # https: behind a TLS proxy
    else:
        raise AcsError(SESSION_REFUSED, "this Guardian is served over HTTP (POST /acs); the "
                       f"client offers only {short(transports)}", "transport_unsupported")
    declared = set(client["methods_implemented"])
    return {
        "negotiated_version": ACS_VERSION,
        "methods_evaluated": [m for m in EVALUATED if m in declared],
        "selected_transport": transport,
        "signature_algorithms_supported": ["HMAC-SHA256"] if signs else [],
        "timeout_config": {"default_ms": 10_000},
        "on_decision_failure": "deny",
        "skew_window_ms": SKEW_WINDOW_MS,
        "approver_types_supported": [],
        "policy_requires_provenance": False,
        "profiles_accepted": ["acs-core", "acs-audit"] if signs else [],
    }
