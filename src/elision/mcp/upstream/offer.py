"""What the proxy tells an upstream server it can do as a client: its client capabilities.

A server shapes what it serves by what its client says it can answer (a tool that needs
elicitation, say, is only listed to a client that can elicit). The proxy forwards those
questions to an agent (:mod:`elision.mcp.asking`), so it should offer upstream only what the
agent can answer. A stdio proxy serves one agent: its upstreams start once that agent's
first request is read, and offer what it declared (:meth:`Offer.of_request`). An HTTP proxy
serves many agents over one upstream session, started before any of them: it offers what
the config allows (:meth:`Offer.everything`, cut by the server's entry in :meth:`allowed`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import mcp_types as types
from mcp_types import CLIENT_CAPABILITIES_META_KEY
from pydantic import ValidationError

from elision.mcp.upstream.config import ServerSpec
from mcp import Client


@dataclass(frozen=True)
class Offer:
    """The client capabilities offered to upstreams (None or False: not offered)."""

    roots: bool
    elicitation: types.ElicitationCapability | None
    sampling: types.SamplingCapability | None

    @classmethod
    def everything(cls) -> Offer:
        """All the proxy can carry: what an unknown set of agents might answer."""
        return cls(
            roots=True,
            elicitation=types.ElicitationCapability(
                form=types.FormElicitationCapability(), url=types.UrlElicitationCapability()
            ),
            sampling=types.SamplingCapability(),
        )

    @classmethod
    def of(cls, caps: types.ClientCapabilities | None) -> Offer:
        """What one agent declared; nothing when it declared nothing."""
        if caps is None:
            return cls(roots=False, elicitation=None, sampling=None)
        return cls(roots=caps.roots is not None, elicitation=caps.elicitation,
                   sampling=caps.sampling)

    @classmethod
    def of_request(cls, method: str, params: Any) -> Offer:
        """What the agent declared in its first request.

        ``initialize`` (the handshake eras) carries them in its params; a newest-era agent
        sends them with every request, under ``_meta``. An agent that declared them in a
        form this SDK cannot read is offered nothing: offering what it may not answer is the
        fault this avoids.
        """
        raw: Any = None
        if isinstance(params, dict):
            if method == "initialize":
                raw = params.get("capabilities")
            elif isinstance(params.get("_meta"), dict):
                raw = params["_meta"].get(CLIENT_CAPABILITIES_META_KEY)
        if not isinstance(raw, dict):
            return cls.of(None)
        try:
            return cls.of(types.ClientCapabilities.model_validate(raw))
        except ValidationError:
            return cls.of(None)

    def allowed(self, spec: ServerSpec) -> Offer:
        """This offer, less what the server's config entry turns off."""
        return Offer(
            roots=self.roots and spec.roots,
            elicitation=self.elicitation if spec.elicitation else None,
            sampling=self.sampling if spec.sampling else None,
        )


def offering(offer: Offer) -> Callable[..., Client]:
    """``Client`` whose session declares elicitation in the modes of ``offer`` (form, URL).

    The SDK declares both modes whenever it has an elicitation callback; an agent that only
    answers forms must not get a server asking for URLs. That needs two private methods of
    the SDK; when they are missing, the SDK's own declaration stands.
    """
    elicitation = offer.elicitation

    def make(*args: Any, **kwargs: Any) -> Client:
        client = Client(*args, **kwargs)
        build = getattr(client, "_build_session", None)
        if elicitation is None or not callable(build):
            return client

        async def build_declaring(exit_stack: Any) -> Any:
            session = await build(exit_stack)
            declare = getattr(session, "_build_capabilities", None)
            if callable(declare):
                def capabilities(version: str) -> types.ClientCapabilities:
                    caps: types.ClientCapabilities = declare(version)
                    return caps.model_copy(update={"elicitation": elicitation})

                session._build_capabilities = capabilities
            return session

        client._build_session = build_declaring  # type: ignore[method-assign]
        return client

    return make
