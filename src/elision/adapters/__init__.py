"""Adapters for agents built in code: the same :class:`~elision.pipeline.Pipeline` on the
tool results of an agent framework, each a few lines over :mod:`elision.adapters.core`.

* :mod:`elision.adapters.openai_agents` - the OpenAI Agents SDK (``elision[openai-agents]``)
* :mod:`elision.adapters.langchain` - LangChain and LangGraph tools (``elision[langchain]``)
* :mod:`elision.adapters.pydantic_ai` - Pydantic AI toolsets (``elision[pydantic-ai]``)
* :mod:`elision.adapters.claude_hook` - a Claude Code ``PostToolUse`` hook for tools the proxy
  does not see

Each wraps a framework's tool so its result reaches the model shaped, redacted, guarded and
audited, and offers ``elision_fetch`` as a tool of that framework, so the model can read the
rest of a cut result from the pipeline's store.
"""
