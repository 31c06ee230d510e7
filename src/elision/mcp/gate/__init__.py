"""The gate between upstream and agent: everything a server sends is governed here.

Result shaping (``results``, ``blocks``, ``bounded``), list results (``listed``, ``tools``),
``_meta`` (``meta``), reference lanes (``references``) and ``elision_fetch`` paging (``paging``).
"""
