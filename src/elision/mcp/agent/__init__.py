"""The agent side: what an agent sends the proxy, who it is, and what reaches it unasked.

Requests in (``ingress``, ``requestbound``), the scope a call runs in (``scopes``), the calls a
server makes back to the agent that caused them (``bridge``), and notifications (``notify``).
"""
