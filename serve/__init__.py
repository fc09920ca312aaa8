"""``wargym serve``: wargym's bots as automated opponents for other programs.

One session core (``session.py``) behind two transports: JSON lines on
stdin/stdout (``stdio.py``) and HTTP + WebSocket (``http.py``, the ``serve``
extra), plus a browser page to play against the bots (``static/``).  The
messages are described in ``PROTOCOL.md`` and defined in ``protocol.py``.
"""
